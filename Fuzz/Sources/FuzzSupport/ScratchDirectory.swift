import Foundation

/// A directory of its own under the system's temporary directory, for the store files of
/// one fuzz run; removed by ``remove()``.
public struct ScratchDirectory: Sendable {
    public let url: URL

    public init(_ label: String) {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(getpid())-\(UUID().uuidString.prefix(8))", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            fuzzFailure("cannot create the scratch directory \(url.path): \(error)")
        }
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
