// Only with the PostgreSQL trait (Package.swift): the commands' work on a postgresql:// store.
#if PostgreSQL
import ArgumentParser
import Foundation
import GraphCore
import PostgresStore

extension CompactCommand {
    /// `compact` of a PostgreSQL store, while its servers run: the database compacts its own
    /// tables (autovacuum), so what is left is the history table, which gains a row per save and
    /// loses none: every row but the newest `--history-commits` is removed
    /// (``PostgresStore/trimHistory(keeping:)``). A server further behind than that cannot
    /// follow the database any more and must be restarted (docs/POSTGRESQL.md).
    func compactDatabase(_ url: URL, shownAs location: StoreLocation) throws {
        guard historyCommits > 0 else {
            print("\(location): nothing to do: --history-commits 0 keeps the history table as it is")
            return
        }
        let objectModel: ObjectModel
        do {
            objectModel = try SampleModel.load(path: model)
        } catch {
            FileHandle.standardError.write(Data("cannot compact: the model cannot be used: \(error)\n".utf8))
            throw ExitCode(2)
        }
        StoreLocation.registerStores()
        let coordinator = StoreCoordinator(model: objectModel)
        let trim: PostgresStore.HistoryTrim
        do {
            // Opened without creating anything: a database without a store is refused.
            let opened = try coordinator.addPersistentStore(type: PostgresStore.storeType, at: url, options: StoreOptions(isReadOnly: true))
            defer { coordinator.remove(opened) }
            guard let database = opened as? PostgresStore else { throw GraphError.store("\(location) did not open as a PostgreSQL store") }
            trim = try database.trimHistory(keeping: Int64(historyCommits))
        } catch {
            throw DatabaseReading.fail(error, prefix: "cannot compact \(location): ")
        }
        let kept = trim.first.flatMap { first in trim.last.map { "commits \(first) to \($0) kept" } } ?? "the history is empty"
        print("\(location): compacted, \(trim.removed) history row(s) removed, \(kept)")
    }
}
#endif
