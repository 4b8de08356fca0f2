import Foundation

/// A running `docserver serve` on a store file, started as a child process.
final class DocServer {
    let host: String
    let port: Int
    private let child: ChildProcess

    /// Starts `binary serve --model model --store store --port 0` and waits (up to
    /// `timeout` s) for its one line `listening on HOST:PORT`.
    init(binary: String, model: URL, store: URL, log: URL, timeout: Double = 120) throws {
        child = try ChildProcess(name: "docserver", executable: binary,
                                 arguments: ["serve", "--model", model.path, "--store", store.path, "--port", "0"], logURL: log)
        guard let line = try child.readLine(timeout: timeout) else {
            let ended = child.stop(timeout: 2)
            throw BenchmarkError("docserver printed no `listening on` line within \(Int(timeout)) s (\(ended)); its log:\n\(child.logTail())")
        }
        let prefix = "listening on "
        guard line.hasPrefix(prefix), let colon = line.lastIndex(of: ":"), let port = Int(line[line.index(after: colon)...]) else {
            child.stop(timeout: 2)
            throw BenchmarkError("docserver's first line is not `listening on HOST:PORT`: \(line)")
        }
        var host = String(line[line.index(line.startIndex, offsetBy: prefix.count)..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.host = host
        self.port = port
    }

    var processIdentifier: Int32 { child.processIdentifier }

    /// SIGTERM; says how the server ended (the contract: a clean exit 0).
    func stop() -> String { child.stop() }

    func logTail(_ count: Int = 20) -> String { child.logTail(count) }

    /// The docserver binary: `--docserver PATH`, else `DOCSERVER_BINARY`, else the newer of
    /// `<repo>/.build/release/docserver` and `<repo>/.build-bench/release/docserver`; when none
    /// exists, builds it (`swift build -c release --scratch-path .build-bench --product docserver`).
    static func locateBinary(explicit: String?, repository: URL) throws -> String {
        if let path = explicit ?? ProcessInfo.processInfo.environment["DOCSERVER_BINARY"] {
            guard FileManager.default.isExecutableFile(atPath: path) else { throw BenchmarkError("no docserver executable at \(path)") }
            return path
        }
        let candidates = [".build/release/docserver", ".build-bench/release/docserver"]
            .map { repository.appendingPathComponent($0).path }
            .filter { FileManager.default.isExecutableFile(atPath: $0) }
            .sorted { modified($0) > modified($1) }
        if let newest = candidates.first { return newest }
        guard let swift = which("swift") else { throw BenchmarkError("no docserver binary and no `swift` on PATH to build one") }
        let arguments = ["build", "-c", "release", "--scratch-path", ".build-bench", "--product", "docserver"]
        FileHandle.standardError.write(Data("building docserver: swift \(arguments.joined(separator: " ")) in \(repository.path)\n".utf8))
        let build = try runProgram(swift, arguments, in: repository)
        FileHandle.standardError.write(Data(build.output.utf8))
        let built = repository.appendingPathComponent(".build-bench/release/docserver").path
        guard build.status == 0, FileManager.default.isExecutableFile(atPath: built) else {
            throw BenchmarkError("building docserver failed (exit status \(build.status))")
        }
        return built
    }

    private static func modified(_ path: String) -> Date {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? .distantPast
    }
}
