import Foundation

/// A running `docserver serve` on a store file, started as a child process (stopped with the
/// other children by ``ChildProcessReaper``).
public final class DocServer {
    public let host: String
    public let port: Int
    private let child: ChildProcess

    /// Starts `binary serve --model model --store store --port 0` followed by `arguments`
    /// (e.g. `--log-level warning`) and waits (up to `timeout` s) for its one line
    /// `listening on HOST:PORT`.
    public init(binary: String, model: URL, store: URL, log: URL, arguments: [String] = [], timeout: Double = 120) throws {
        child = try ChildProcess(name: "docserver", executable: binary,
                                 arguments: ["serve", "--model", model.path, "--store", store.path, "--port", "0"] + arguments, logURL: log)
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

    deinit { child.stop() }

    public var processIdentifier: Int32 { child.processIdentifier }

    /// `docstore://HOST:PORT` (an IPv6 host in brackets).
    public var url: URL? { URL(string: "docstore://\(host.contains(":") ? "[\(host)]" : host):\(port)") }

    /// SIGTERM; says how the server ended (the contract: a clean exit 0).
    public func stop() -> String { child.stop() }

    public func logTail(_ count: Int = 20) -> String { child.logTail(count) }
}
