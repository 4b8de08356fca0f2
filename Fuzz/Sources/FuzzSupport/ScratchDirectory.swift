import Foundation

/// The directories to remove when the process exits (libFuzzer ends with `exit`).
nonisolated(unsafe) private var scratchPaths: [String] = []

/// A directory of its own for the store files of one fuzz run, in `/dev/shm` when there is one
/// (memory: an fsync there costs nothing, and the targets check parsing, not durability), else
/// under the system's temporary directory; removed by ``remove()``.

public struct ScratchDirectory: Sendable {
    public let url: URL

    public init(_ label: String) {
        var isDirectory: ObjCBool = false
        let memory = FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory) && isDirectory.boolValue
            && FileManager.default.isWritableFile(atPath: "/dev/shm")
        let base = memory ? URL(fileURLWithPath: "/dev/shm", isDirectory: true) : FileManager.default.temporaryDirectory
        url = base.appendingPathComponent("\(label)-\(getpid())-\(UUID().uuidString.prefix(8))", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            fuzzFailure("cannot create the scratch directory \(url.path): \(error)")
        }
        if scratchPaths.isEmpty {
            atexit { for path in scratchPaths { try? FileManager.default.removeItem(atPath: path) } }
        }
        scratchPaths.append(url.path)
    }

    /// Writes `bytes` to `name` in the directory (replacing it) and returns its URL.
    public func write(_ bytes: [UInt8], to name: String) -> URL {
        let file = url.appendingPathComponent(name)
        do {
            try Data(bytes).write(to: file)
        } catch {
            fuzzFailure("cannot write \(file.path): \(error)")
        }
        return file
    }

    /// Removes every file in the directory, keeping the directory.
    public func empty() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        for name in names { try? FileManager.default.removeItem(at: url.appendingPathComponent(name)) }
    }

    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
