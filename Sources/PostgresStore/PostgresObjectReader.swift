import Foundation
import GraphCore

/// Reads a PostgreSQL store's objects on a connection of its own (``PostgresStore/openObjectReader()``):
/// a second store on the same database with the same identifier and layout, never added to
/// the coordinator, so that its statements run beside the first one's and not after them.
final class PostgresObjectReader: DatabaseObjectReader {
    private let store: PostgresStore

    init(twinOf original: PostgresStore) throws {
        guard let coordinator = original.coordinator else { throw GraphError.store("the store's coordinator is gone") }
        store = try PostgresStore(coordinator: coordinator, configurationName: original.configurationName,
                                  url: original.url, options: original.options)
        store.metadata = original.metadata
    }

    deinit { store.session.close() }

    func committedSnapshots(of ids: [ObjectID]) throws -> (snapshots: [ObjectSnapshot], through: Int64) {
        try store.committedSnapshotsThrough(of: ids)
    }

    func fetch(_ request: FetchRequest) throws -> (result: StoreFetchResult, through: Int64) {
        let (result, through) = try store.runFetch(request, readingCommit: true)
        return (result, try through ?? CommitHistory.latest(session: store.session))
    }

    func explain(_ request: FetchRequest) throws -> String {
        try store.plan(for: request, readingCommit: true).description.description
    }

    func close() {
        store.session.close()
    }
}

extension PostgresStore {
    /// A reader of this store's objects on a connection of its own (opened at its first read).
    public func openObjectReader() throws -> any DatabaseObjectReader {
        try PostgresObjectReader(twinOf: self)
    }
}
