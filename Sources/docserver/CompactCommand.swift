import ArgumentParser
import Foundation
import DocumentServer
import GraphCore
import JSONAtomicStore

/// `docserver compact`: folds a store's journal into its snapshot file.
struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Checkpoint a store file that no server holds; trim a PostgreSQL store's history table.",
        discussion: """
            Opens the store for writing (taking its lock), replays the journal (<store>-journal), writes a new \\
            snapshot file (temporary file, fsync, rename, directory fsync) and empties the journal; a torn last \\
            record is cut off on the way. Safe to interrupt: the store reopens to the same objects. Exit status: \\
            0 with a one-line summary; 1 when the store is damaged (the error names the file and the byte offset) \\
            or cannot be written; 2 when it cannot be compacted: the store file does not exist, the model is \\
            missing or invalid, or the store is in use by another process (a running server checkpoints by itself). \
            With a postgresql:// URL as --store, while servers run: removes every row of the history table but the \
            newest --history-commits (a server further behind must then be restarted).
            """
    )

    @Option(help: ArgumentHelp("The model: a JSON model file (docs/MODEL.md) or an Xcode .xcdatamodeld / .xcdatamodel (its current version); the built-in sample model when omitted.", valueName: "path"))
    var model: String?

    @Option(help: ArgumentHelp("The store file to compact, or a postgresql:// URL (its history table is trimmed).", valueName: "file-or-url"))
    var store: String

    @Option(help: ArgumentHelp("How many of the newest commits stay in the store's history file (<store>-history) for subscribe's and changes' 'since' once the journal is folded (for a postgresql:// store: the rows its history table keeps); use the value the server runs with (its --history-commits). 0 leaves the history file as it is, and a server started afterwards answers an older 'since' with 'history expired'. [default: \(ServerConfiguration.defaultHistoryCommits)]", valueName: "count"))
    var historyCommits: Int = ServerConfiguration.defaultHistoryCommits

    func validate() throws {
        guard (0...10_000_000).contains(historyCommits) else {
            throw ValidationError("--history-commits must be from 0 to 10000000, not \(historyCommits)")
        }
    }

    func run() throws {
        #if PostgreSQL
        if let database = try StoreLocation.database(named: store, verb: "compact") {
            return try compactDatabase(database.url, shownAs: database.location)
        }
        #else
        try StoreLocation.refuseDatabase(named: store, verb: "compact")
        #endif
        let objectModel = try ExistingStore.model(store: store, model: model, verb: "compact", missing: "compact creates nothing")
        JSONAtomicStore.register()
        let coordinator = StoreCoordinator(model: objectModel)
        let opened: PersistentStore
        do {
            let options = StoreOptions(values: [JSONAtomicStore.historyRecordsOption: String(historyCommits)])
            opened = try coordinator.addPersistentStore(type: JSONAtomicStore.storeType, at: URL(fileURLWithPath: store),
                                                        options: options)
        } catch let error as JSONStoreError {
            if case .storeInUse = error {
                FileHandle.standardError.write(Data("cannot compact: \(error): stop the server first (a running server checkpoints by itself)\n".utf8))
                throw ExitCode(2)
            }
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(1)
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(1)
        }
        defer { coordinator.remove(opened) }
        guard let json = opened as? JSONAtomicStore else { throw ExitCode(1) }
        let bytes = json.journalByteCount, records = json.replayedRecordCount, torn = json.recoveredTornBytes
        do {
            try json.checkpoint()
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(1)
        }
        print("\(store): compacted, \(json.cacheNodeCount) objects at commit \(json.commitSequence); "
              + "\(records) journal record(s) (\(bytes) bytes) folded into the snapshot"
              + (torn > 0 ? "; a torn last record of \(torn) bytes was cut off" : ""))
    }
}
