import ArgumentParser
import Foundation
import GraphCore
import JSONAtomicStore

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a store file against a model.",
        discussion: """
            Reads the whole file as the server would (read-only: it takes no lock, so it also works on the \
            store of a running server) and checks its syntax, shape, value types, required values, references \
            and inverse relationships. Exits 0 with a one-line summary, or 1 with the first error and where it is.
            """
    )

    @Option(help: ArgumentHelp("The model file (docs/MODEL.md); the built-in sample model when omitted.", valueName: "file"))
    var model: String?

    @Option(help: ArgumentHelp("The store file to check.", valueName: "file"))
    var store: String

    func run() throws {
        do {
            guard FileManager.default.fileExists(atPath: store) else {
                throw CheckFailure("\(store): no such file")
            }
            let objectModel = try SampleModel.load(path: model)
            JSONAtomicStore.register()
            let coordinator = StoreCoordinator(model: objectModel)
            var options = StoreOptions()
            options.isReadOnly = true
            let opened = try coordinator.addPersistentStore(type: JSONAtomicStore.storeType, at: URL(fileURLWithPath: store), options: options)
            defer { coordinator.remove(opened) }
            let nodes = (opened as? AtomicStore)?.cacheNodes() ?? []
            var counts: [String: Int] = [:]
            for node in nodes { counts[node.objectID.entityName, default: 0] += 1 }
            let perEntity = counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print("\(store): ok, \(nodes.count) objects" + (perEntity.isEmpty ? "" : " (\(perEntity))")
                  + ", store \(opened.identifier), model \(objectModel.versionHash.prefix(12))")
        } catch {
            // Store errors name the file already.
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}

struct CheckFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
