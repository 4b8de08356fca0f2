import ArgumentParser
import Foundation
import GraphCore
import JSONAtomicStore
#if canImport(Glibc)
import Glibc
#endif

/// `docserver import`: a store's objects from an export (NDJSON or a JSON array), in one
/// atomic step.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Read an export (NDJSON, or a JSON array) into a store, keeping every object's ID.",
        discussion: """
            Reads the header line and then one object a line in the wire form (docs/OPERATIONS.md, "Export and \\
            import"); objects may refer to objects later in the input. Every bad line is named by its number. \\
            The objects become the store's whole content in one atomic step (checked as a server's load of \\
            them would check them, then written as a new snapshot file renamed over the store); the store keeps the export's store UUID, so \\
            the objects keep their IDs. A store file that does not exist is created; one that holds objects is \\
            refused unless --replace. The store must not be open in a server (it takes the store's lock). \\
            Progress goes to standard error. Exit status: 0 with a one-line summary; 1 when the input has bad \\
            lines or its objects do not make a valid store (nothing is written); 2 when it cannot import: the \\
            model cannot be used, the export was written for another model, the store holds objects (without \\
            --replace) or is in use, or the input is not an export.
            """
    )

    @Option(help: ArgumentHelp("The model: a JSON model file (docs/MODEL.md) or an Xcode .xcdatamodeld / .xcdatamodel (its current version); the built-in sample model when omitted.", valueName: "path"))
    var model: String?

    @Option(help: ArgumentHelp("The store file to import into (created when missing).", valueName: "file"))
    var store: String

    @Option(help: ArgumentHelp("Read from this file instead of standard input.", valueName: "file"))
    var from: String?

    @Flag(help: "Replace the objects of a store that holds some (without it, such a store is refused).")
    var replace = false

    @Flag(help: "No progress on standard error.")
    var quiet = false

    func run() throws {
        let objectModel: ObjectModel
        do {
            objectModel = try SampleModel.load(path: model)
        } catch {
            FileHandle.standardError.write(Data("cannot import: the model cannot be used: \(error)\n".utf8))
            throw ExitCode(2)
        }
        var descriptor = STDIN_FILENO
        if let from {
            descriptor = open(from, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                FileHandle.standardError.write(Data("cannot import: \(from): \(String(cString: strerror(errno)))\n".utf8))
                throw ExitCode(2)
            }
        }
        defer { if from != nil { close(descriptor) } }
        let progress = ImportProgress(enabled: !quiet)
        let reader = ImportReader(model: objectModel, descriptor: descriptor, progress: progress)
        do {
            try reader.read()
        } catch {
            FileHandle.standardError.write(Data("cannot import: \(error)\n".utf8))
            throw ExitCode(2)
        }
        guard let header = reader.header else { throw ExitCode(2) }
        ImportReferences.check(reader.objects) { line, reason in reader.note(line, reason) }
        if reader.problemCount > 0 {
            let place = reader.isArray ? "element" : "line"
            for problem in reader.problems.sorted(by: { $0.line < $1.line }) {
                FileHandle.standardError.write(Data("\(from ?? "input"): \(place) \(problem.line): \(problem.reason)\n".utf8))
            }
            if reader.problemCount > reader.problems.count {
                FileHandle.standardError.write(Data("… and \(reader.problemCount - reader.problems.count) more\n".utf8))
            }
            FileHandle.standardError.write(Data("nothing imported: \(reader.problemCount) bad \(place)(s); \(store) is unchanged\n".utf8))
            throw ExitCode(1)
        }
        progress.say("\(reader.objects.count) objects checked; writing \(store)")
        var nodes: [String: [ObjectSnapshot]] = [:]
        var counts: [String: Int] = [:]
        for object in reader.objects {
            let id = ObjectID(entity: object.entity, storeIdentifier: header.storeUUID, reference: .int(object.reference))
            nodes[object.entity.name, default: []].append(ObjectSnapshot(objectID: id, version: object.version, values: object.values))
            counts[object.entity.name, default: 0] += 1
        }
        do {
            try StoreImportWriter.write(path: store, model: objectModel, storeUUID: header.storeUUID, userInfo: header.userInfo,
                                        nodes: nodes, replacing: replace, check: .inMemory)
        } catch let error as StoreImportWriter.NotEmpty {
            FileHandle.standardError.write(Data("cannot import: \(error)\n".utf8))
            throw ExitCode(2)
        } catch let error as JSONStoreError {
            FileHandle.standardError.write(Data("cannot import: \(error)\n".utf8))
            if case .storeInUse = error { throw ExitCode(2) }
            throw ExitCode(1)
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(1)
        }
        progress.say("done")
        // Not freed: the process ends right after the import, and freeing a million objects one
        // by one took about 5 % of an import's CPU time (perf, 1,000,000 objects). Kept until exit.
        _ = Unmanaged.passRetained(KeptUntilExit((reader, nodes)))
        let perEntity = counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        print("\(store): imported \(reader.objects.count) objects" + (perEntity.isEmpty ? "" : " (\(perEntity))")
              + " of store \(header.storeUUID)")
    }
}

/// Values an ending command leaves to the process's exit instead of freeing them.
final class KeptUntilExit<Value> {
    let value: Value
    init(_ value: Value) { self.value = value }
}
