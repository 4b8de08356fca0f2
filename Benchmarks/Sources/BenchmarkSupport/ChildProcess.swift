import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A server this benchmark starts (docserver, redis-server): standard output is a pipe the
/// benchmark reads, standard error goes to a log file; `stop()` sends SIGTERM.
public final class ChildProcess {
    public let name: String
    public let logURL: URL
    private let process = Process()
    private let output = Pipe()
    private var buffered: [UInt8] = []

    public init(name: String, executable: String, arguments: [String], logURL: URL) throws {
        self.name = name
        self.logURL = logURL
        guard FileManager.default.createFile(atPath: logURL.path, contents: nil) else {
            throw BenchmarkError("cannot create \(logURL.path)")
        }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: logURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        ChildProcessReaper.register(process.processIdentifier)
    }

    public var processIdentifier: Int32 { process.processIdentifier }

    /// The next line of standard output, or nil at its end or after `timeout` seconds.
    public func readLine(timeout: Double) throws -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        let descriptor = output.fileHandleForReading.fileDescriptor
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let newline = buffered.firstIndex(of: 0x0A) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(remaining * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffered.append(contentsOf: chunk[..<count])
        }
    }

    /// Sends SIGTERM and waits up to `timeout` seconds (then SIGKILL); says how it ended.
    @discardableResult
    public func stop(timeout: Double = 10) -> String {
        defer { ChildProcessReaper.unregister(process.processIdentifier) }
        guard process.isRunning else { return exitDescription }
        process.terminate()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return "did not exit within \(Int(timeout)) s of SIGTERM; killed"
        }
        return exitDescription
    }

    private var exitDescription: String {
        process.waitUntilExit()
        switch process.terminationReason {
        case .exit: return "exit status \(process.terminationStatus)"
        case .uncaughtSignal: return "killed by signal \(process.terminationStatus)"
        @unknown default: return "ended with status \(process.terminationStatus)"
        }
    }

    /// The last `count` lines of the standard error log.
    public func logTail(_ count: Int = 20) -> String {
        let text = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(count).joined(separator: "\n")
    }
}
