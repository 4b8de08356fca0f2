import ArgumentParser
import Foundation
import GraphCore
import JSONAtomicStore
#if PostgreSQL
import PostgresStore
#endif

/// `docserver copy`: a JSON store's objects into an empty PostgreSQL database, or a database's
/// into a new JSON store file, with their IDs, references, versions and commit number.
struct CopyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy a JSON store file into an empty PostgreSQL database, or a database into a new JSON store file, keeping every object's ID and version.",
        discussion: """
            Reads the store file (its snapshot and journal, as of the moment it is read; a server may keep \
            serving it) and writes every object into the database in one transaction, with its ID (the \
            database takes the store's identifier, so IDs clients hold stay valid): set-based INSERTs of \
            5,000 objects at a time, references between objects checked at the end, the reference sequence \
            moved past the highest ID, and one history row numbered with the store's last commit, so that \
            saves through servers on the database continue its numbering. The database's schema is made \
            from the model when it has none; a database that holds objects or commits is refused. Progress \
            goes to standard error. The store's history (what each earlier commit changed) is not copied: \
            `since` on the database starts at the copy. Exit status: 0 with a one-line summary; 1 when the \
            store or the database fails (no object is written: the copy is one transaction; the schema stays, made from the model); 2 when the copy cannot start \
            (no such store file, a model that cannot be used, a destination that is not an empty database).

            From a database to a file (--from postgresql://… --to store.json): every object is read in one \
            read-only REPEATABLE READ transaction (the database at one instant; servers may go on saving), \
            in pages of 10,000 by reference, and written as a new store file with the database's store \
            identifier, its last commit number and a reference counter past every reference the database \
            handed out; the file is checked as the server's loader checks a store (values, references, \
            inverses, uniqueness constraints) before it is renamed into place. A store file that holds objects \
            is refused (exit status 2); nothing is written when the copy fails (exit status 1).
            """
    )

    @Option(help: ArgumentHelp("The model: a JSON model file (docs/MODEL.md) or an Xcode .xcdatamodeld / .xcdatamodel (its current version); the built-in sample model when omitted.", valueName: "path"))
    var model: String?

    @Option(help: ArgumentHelp("What to copy: a JSON store file, or a database's postgresql:// URL.", valueName: "file-or-url"))
    var from: String

    @Option(help: ArgumentHelp("Where to copy it: a postgresql://user:password@host:port/database URL (docs/POSTGRESQL.md; sslmode and sslrootcert as libpq's), or a new JSON store file.", valueName: "url-or-file"))
    var to: String

    /// Objects per INSERT batch.
    static let batchSize = 5_000

    func run() throws {
        let source: StoreLocation, destination: StoreLocation
        do {
            source = try StoreLocation(from)
            destination = try StoreLocation(to)
        } catch {
            fail("cannot copy: \(error)", status: 2)
        }
        switch (source, destination) {
        #if PostgreSQL
        case (.file, .postgreSQL(let databaseURL)):
            try copyIntoDatabase(databaseURL, shownAs: destination)
        case (.postgreSQL(let databaseURL), .file(let file)):
            try copyOutOfDatabase(databaseURL, shownAs: source, to: file.path)
        case (.postgreSQL, .postgreSQL):
            fail("cannot copy: from a database into a database is not supported; copy into a store file, then from it", status: 2)
        #endif
        case (.file, .file):
            fail("cannot copy: one of --from and --to must be a postgresql:// URL (to copy a store file, use docserver backup or export)", status: 2)
        }
    }

    #if PostgreSQL

    /// A JSON store file (`from`) into the empty database at `databaseURL`.
    private func copyIntoDatabase(_ databaseURL: URL, shownAs destination: StoreLocation) throws {
        let objectModel = try ExistingStore.model(store: from, model: model, verb: "copy", missing: "there is nothing to copy")
        StoreLocation.registerStores()
        let started = ContinuousClock.now

        let sourceCoordinator = StoreCoordinator(model: objectModel)
        let source: JSONAtomicStore
        do {
            let opened = try sourceCoordinator.addPersistentStore(type: JSONAtomicStore.storeType, at: URL(fileURLWithPath: from),
                                                                  options: StoreOptions(isReadOnly: true))
            guard let json = opened as? JSONAtomicStore else { fail("cannot copy: \(from) did not open as a JSON store", status: 1) }
            source = json
        } catch {
            fail("cannot copy: \(error)", status: 1)
        }
        defer { sourceCoordinator.remove(source) }

        let destinationCoordinator = StoreCoordinator(model: objectModel)
        let database: PostgresStore
        do {
            let opened = try destinationCoordinator.addPersistentStore(type: PostgresStore.storeType, at: databaseURL)
            guard let postgres = opened as? PostgresStore else { fail("cannot copy: \(destination) did not open as a PostgreSQL store", status: 1) }
            database = postgres
        } catch {
            fail("cannot copy: \(error)", status: 1)
        }
        defer { destinationCoordinator.remove(database) }

        let total: Int
        do {
            guard try database.holdsNothing() else {
                fail("cannot copy: \(destination) already holds objects or commits: copy goes into an empty database", status: 2)
            }
            let nodes = source.cacheNodes()
            total = nodes.count
            let batches = stride(from: 0, to: total, by: Self.batchSize).lazy.map { start in
                nodes[start..<min(start + Self.batchSize, total)].map { ObjectSnapshot(objectID: $0.objectID, version: $0.version, values: $0.values) }
            }
            try database.importObjects(batches, storeIdentifier: source.identifier, lastCommit: source.commitSequence,
                                       author: "docserver copy") { written in
                FileHandle.standardError.write(Data("copied \(written) of \(total) objects\n".utf8))
            }
        } catch {
            fail("cannot copy: \(error) (no object was written to the database: the copy is one transaction)", status: 1)
        }
        // Committed: a failure from here on loses nothing, and is a warning.
        do {
            try database.analyzeObjectTables()
        } catch {
            FileHandle.standardError.write(Data(("warning: the objects are copied, but ANALYZE of their tables failed: \(error); "
                + "run ANALYZE on the database before serving it, or PostgreSQL plans without statistics until autovacuum analyzes it\n").utf8))
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("\(from): \(total) objects at commit \(source.commitSequence) copied into \(destination) in "
              + String(format: "%.1f s", seconds))
    }
    #endif

    func fail(_ message: String, status: Int32) -> Never {
        FileHandle.standardError.write(Data("\(message)\n".utf8))
        Foundation.exit(status)
    }
}
