import ArgumentParser
import DocumentProtocol
import Foundation
import GraphCore
import JSONAtomicStore
import JSONCore
#if canImport(Glibc)
import Glibc
#endif

/// `docserver export`: a store's objects as NDJSON, one object a line in the wire form.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a store's objects as NDJSON: a header line, then one object a line in the wire form.",
        discussion: """
            Opens the store read-only (snapshot file and journal, as `check` does; it takes no lock) and writes a \\
            header line (format, model name and version hashes, store UUID, commit) and then every object as \\
            {"id","entity","version","values"}, relationships as object IDs, exactly as the protocol answers it \\
            (docs/PROTOCOL.md), entities by name and objects by reference. The format is described in \\
            docs/OPERATIONS.md ("Export and import"). Exit status: 0; 1 when the store does not load or the output \\
            cannot be written; 2 when the store file does not exist or the model cannot be used.
            """
    )

    @Option(help: ArgumentHelp("The model: a JSON model file (docs/MODEL.md) or an Xcode .xcdatamodeld / .xcdatamodel (its current version); the built-in sample model when omitted.", valueName: "path"))
    var model: String?

    @Option(help: ArgumentHelp("The store file to export.", valueName: "file"))
    var store: String

    @Option(help: ArgumentHelp("Write to this file (replaced when it exists) instead of standard output.", valueName: "file"))
    var to: String?

    func run() throws {
        let objectModel = try ExistingStore.model(store: store, model: model, verb: "export", missing: "export creates nothing")
        JSONAtomicStore.register()
        let coordinator = StoreCoordinator(model: objectModel)
        var options = StoreOptions()
        options.isReadOnly = true
        options.values[AtomicStore.fetchIndexesOption] = AtomicStore.uniquenessIndexesOnly
        let opened: PersistentStore
        do {
            opened = try coordinator.addPersistentStore(type: JSONAtomicStore.storeType, at: URL(fileURLWithPath: store),
                                                        options: options)
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(1)
        }
        // Not removed: the process ends right after the export, and freeing a large store object by
        // object took about 5 % of an export's CPU time (perf, 1,000,000 objects). Kept until exit.
        _ = Unmanaged.passRetained(coordinator)
        guard let json = opened as? JSONAtomicStore else { throw ExitCode(1) }
        let header = ExportFormat.Header(modelName: ExportFormat.modelName(path: model), modelVersionHash: objectModel.versionHash,
                                         entityVersionHashes: objectModel.entityVersionHashes,
                                         storeUUID: json.metadata.storeIdentifier, commitSequence: json.commitSequence,
                                         userInfo: json.metadata.userInfo)
        let output: ExportOutput
        do {
            output = try ExportOutput(path: to)
        } catch {
            FileHandle.standardError.write(Data("cannot export: \(error)\n".utf8))
            throw ExitCode(1)
        }
        do {
            let count = try ExportWriter(model: objectModel, store: json).write(header: header, to: output)
            try output.finish()
            if to != nil {
                print("\(store): exported \(count) objects at commit \(json.commitSequence) to \(to ?? "")")
            }
        } catch {
            output.abandon()
            FileHandle.standardError.write(Data("cannot export: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}

/// Where an export goes: standard output, or a file written under a temporary name and
/// renamed into place once whole (a failed export leaves no partial file by that name).
final class ExportOutput {
    private let descriptor: Int32
    private let path: String?
    private let temporary: String?

    init(path: String?) throws {
        self.path = path
        guard let path else {
            descriptor = STDOUT_FILENO
            temporary = nil
            return
        }
        let url = URL(fileURLWithPath: path)
        let name = ".\(url.lastPathComponent).export-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
        let temporaryPath = url.deletingLastPathComponent().appendingPathComponent(name).path
        let opened = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard opened >= 0 else { throw ExportIOError(path: temporaryPath, operation: "create", code: errno) }
        descriptor = opened
        temporary = temporaryPath
    }

    /// Writes all of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw ExportIOError(path: temporary ?? "standard output", operation: "write", code: errno)
            }
            offset += written
        }
    }

    /// Makes a file output durable and gives it its name.
    func finish() throws {
        guard let temporary, let path else { return }
        guard fsync(descriptor) == 0 else { throw ExportIOError(path: temporary, operation: "fsync", code: errno) }
        close(descriptor)
        guard rename(temporary, path) == 0 else { throw ExportIOError(path: path, operation: "rename", code: errno) }
    }

    /// Removes a file output that could not be finished.
    func abandon() {
        guard let temporary else { return }
        close(descriptor)
        unlink(temporary)
    }
}

/// A failed system call of an export or import, naming the file.
struct ExportIOError: Error, CustomStringConvertible {
    let path: String
    let operation: String
    let code: Int32
    var description: String { "\(path): \(operation) failed: \(String(cString: strerror(code)))" }
}
