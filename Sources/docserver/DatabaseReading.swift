// Only with the PostgreSQL trait (Package.swift): the commands' work on a postgresql:// store.
#if PostgreSQL
import ArgumentParser
import Foundation
import GraphCore
import PostgresStore

/// The whole of a PostgreSQL store read at one instant, for the commands that work on a
/// database as a whole (`copy` out of it, `check`): opened read-only (a database without a
/// store's schema is refused, nothing is created), read in one transaction, then closed.
enum DatabaseReading {
    /// Every object of the database at `url` with the numbers of its last commit and last
    /// reference; the store's first-gap check of its history when `checkHistory`.
    static func read(_ url: URL, model: ObjectModel, checkHistory: Bool = false,
                     progress: @escaping (Int) -> Void = { _ in }) throws -> (contents: PostgresStore.Contents, gap: (after: Int64, next: Int64)?) {
        StoreLocation.registerStores()
        let coordinator = StoreCoordinator(model: model)
        let opened = try coordinator.addPersistentStore(type: PostgresStore.storeType, at: url, options: StoreOptions(isReadOnly: true))
        defer { coordinator.remove(opened) }
        guard let database = opened as? PostgresStore else { throw GraphError.store("\(url) did not open as a PostgreSQL store") }
        let contents = try database.readEverything(progress: progress)
        let gap = checkHistory ? try database.firstHistoryGap() : nil
        return (contents, gap)
    }

    /// The objects as the JSON store's writer takes them: by concrete entity name.
    static func nodesByEntity(_ objects: [ObjectSnapshot]) -> [String: [ObjectSnapshot]] {
        var nodes: [String: [ObjectSnapshot]] = [:]
        for object in objects {
            nodes[object.objectID.entityName, default: []].append(ObjectSnapshot(objectID: object.objectID, version: object.version, values: object.values))
        }
        return nodes
    }

    /// Says `error` on standard error after `prefix` and ends the command: exit status 2 when
    /// the database cannot be used at all (no store in it, no connection), else 1.
    static func fail(_ error: any Error, prefix: String) -> ExitCode {
        FileHandle.standardError.write(Data("\(prefix)\(error)\n".utf8))
        switch error as? PostgresStoreError {
        case .noStore?, .connectionFailed?: return ExitCode(2)
        default: return ExitCode(1)
        }
    }

    /// "Entity count, …" in name order.
    static func counts(_ objects: [ObjectSnapshot]) -> String {
        var counts: [String: Int] = [:]
        for object in objects { counts[object.objectID.entityName, default: 0] += 1 }
        return counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}
#endif
