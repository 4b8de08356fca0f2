import ArgumentParser
import Foundation
import GraphCore
import JSONAtomicStore

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a store (its snapshot file and its journal, or a PostgreSQL database) against a model.",
        discussion: """
            Reads the snapshot file and replays its journal (<store>-journal) as the server would (read-only: \
            it takes no lock and changes no file, so it also works on the store of a running server) and checks \
            syntax, shape, value types, required values, references and inverse relationships, the model's \
            uniqueness constraints (two objects sharing one's values are an error naming both), and that the \
            journal's records follow each other. The summary says how many journal records were replayed, and a \
            warning reports a torn last record (a write cut short by a crash; it is left out, and cut off when \
            the store is next opened for writing). A damaged record before the last one is an error naming the \
            journal and the byte offset. Exit status: 0 with a one-line summary when the store is valid (followed by \
            warnings when no reference is left for new objects or objects are at the largest version); 1 with \
            the first error and where it is when it is not; 2 when it cannot be checked: the store file does \
            not exist (check creates nothing), or the model file is missing or invalid.

            A postgresql:// URL as --store checks a database: read at one instant in one read-only transaction \
            (servers may go on saving; nothing is created or changed), its objects checked as the loader checks \
            a store file (the same checks as above, on a temporary file that is removed), the history's \
            numbering checked for holes and the reference sequence for a value below an object's reference. \
            Exit status 2 also when the database cannot be reached or holds no store.
            """
    )

    @Option(help: ArgumentHelp("The model: a JSON model file (docs/MODEL.md) or an Xcode .xcdatamodeld / .xcdatamodel (its current version); the built-in sample model when omitted.", valueName: "path"))
    var model: String?

    @Option(help: ArgumentHelp("The store file to check, or a database's postgresql:// URL.", valueName: "file-or-url"))
    var store: String

    func run() throws {
        #if PostgreSQL
        if let database = try StoreLocation.database(named: store, verb: "check") {
            try checkDatabase(database.url, shownAs: database.location)
            return
        }
        #else
        try StoreLocation.refuseDatabase(named: store, verb: "check")
        #endif
        let objectModel = try ExistingStore.model(store: store, model: model, verb: "check", missing: "check creates nothing; serve creates a missing store")
        do {
            JSONAtomicStore.register()
            let coordinator = StoreCoordinator(model: objectModel)
            var options = StoreOptions()
            options.isReadOnly = true
            let opened = try coordinator.addPersistentStore(type: JSONAtomicStore.storeType, at: URL(fileURLWithPath: store), options: options)
            defer { coordinator.remove(opened) }
            let nodes = (opened as? AtomicStore)?.cacheNodes() ?? []
            if case .uniquenessViolation(let entity, let attributes, let values, let objects)? = (opened as? AtomicStore)?.firstUniquenessViolation() {
                let pairs = zip(attributes, values).map { "\($0) = \(String($1.formatLiteral.prefix(128)))" }.joined(separator: ", ")
                FileHandle.standardError.write(Data(("\(store): two \(entity) objects share \(pairs), against the uniqueness constraint"
                    + " [\(attributes.joined(separator: ", "))]: \(objects.map(\.uriRepresentation).joined(separator: " and "))\n").utf8))
                throw ExitCode(1)
            }
            var counts: [String: Int] = [:]
            for node in nodes { counts[node.objectID.entityName, default: 0] += 1 }
            let perEntity = counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            let json = opened as? JSONAtomicStore
            // The history file's records are checked as the journal's are (checksums, schema).
            let history = try json?.checkHistoryFile()
            let journal = json.map { ", commit \($0.commitSequence), journal \($0.replayedRecordCount) record(s) replayed"
                + " (\($0.journalByteCount) bytes)" } ?? ""
            let historyText = history.map { ", history file \($0.records) record(s) (format version \($0.formatVersion))" } ?? ""
            print("\(store): ok, \(nodes.count) objects" + (perEntity.isEmpty ? "" : " (\(perEntity))")
                  + ", store \(opened.identifier), model \(objectModel.versionHash.prefix(12))" + journal + historyText)
            if let json, json.recoveredTornBytes > 0 {
                print("warning: \(json.journalPath): a torn last record of \(json.recoveredTornBytes) bytes at byte "
                      + "\(json.journalByteCount) (a write cut short by a crash) is left out; it is cut off when the store "
                      + "is next opened for writing")
            }
            for warning in Self.numberingWarnings(opened as? AtomicStore, nodes: nodes) { print("warning: \(warning)") }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            // Store errors name the file already.
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}

extension CheckCommand {
    /// What the file allows but a save will refuse: no reference left for an insert, objects
    /// at the largest version (they cannot be changed again).
    static func numberingWarnings(_ store: AtomicStore?, nodes: [ObjectSnapshot]) -> [String] {
        var warnings: [String] = []
        if let store, store.nextReference == Int64.max {
            warnings.append("no reference left for new objects (nextReference \(Int64.max)): every insert will be refused")
        }
        let stuck = nodes.filter { $0.version == Int64.max }
        if let first = stuck.first {
            warnings.append("\(stuck.count) object(s) at the largest version \(Int64.max), first \(first.objectID.uriRepresentation): "
                            + "they cannot be saved again")
        }
        return warnings
    }
}
