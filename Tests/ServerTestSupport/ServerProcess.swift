import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A running `docserver serve`, started on a free port. Killed with SIGKILL when deallocated while
/// still running, so that a failing test leaves no process behind; and started with
/// `--stop-when-stdin-closes` on a pipe this object holds, so that a test process that crashes
/// (and deallocates nothing) leaves none behind either.
public final class ServerProcess {
    public let process = Process()
    public let host: String
    public let port: UInt16
    public let storeURL: URL
    /// Standard error of the server (its log), in a file so that it never blocks the server.
    public let logURL: URL
    private let output = Pipe()
    /// The server's standard input: its end here closes when the test process ends.
    private let input = Pipe()
    private let logHandle: FileHandle
    /// The directory the store lives in, kept until the server is gone.
    private let directory: TemporaryDirectory?

    /// Starts `docserver serve --port 0 --store <store> <arguments>` and waits for its
    /// `listening on HOST:PORT` line.
    /// With `store` nil, no `--store` is passed: the server uses `data/store.json` in
    /// `workingDirectory`.
    public init(store: URL?, arguments: [String] = [], environment: [String: String] = [:],
                workingDirectory: URL? = nil, keeping temporaryDirectory: TemporaryDirectory? = nil, timeout: Double = 15) throws {
        self.directory = temporaryDirectory
        let directory = workingDirectory ?? store?.deletingLastPathComponent() ?? FileManager.default.temporaryDirectory
        storeURL = store ?? directory.appendingPathComponent("data/store.json")
        logURL = directory.appendingPathComponent("server-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        logHandle = try FileHandle(forWritingTo: logURL)
        process.executableURL = try DocServerBinary.url()
        process.arguments = ["serve", "--port", "0", "--stop-when-stdin-closes"] + (store.map { ["--store", $0.path] } ?? []) + arguments
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        process.environment = Self.environment(adding: environment)
        process.standardInput = input
        process.standardOutput = output
        process.standardError = logHandle
        try process.run()
        let line: String
        do {
            line = try Self.readLine(from: output.fileHandleForReading.fileDescriptor, timeout: timeout)
        } catch {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            throw HarnessError("docserver serve did not print its listening line (\(error)); exit status \(process.terminationStatus); log: \(Self.text(of: logURL))")
        }
        let prefix = "listening on "
        guard line.hasPrefix(prefix), let colon = line.lastIndex(of: ":"),
              let port = UInt16(line[line.index(after: colon)...]), port != 0 else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw HarnessError("unexpected first line from docserver serve: \(line.debugDescription)")
        }
        host = String(line[line.index(line.startIndex, offsetBy: prefix.count)..<colon])
        self.port = port
    }

    /// A new server on a store file in `directory` (`store.json`).
    public convenience init(in directory: TemporaryDirectory, arguments: [String] = [], environment: [String: String] = [:]) throws {
        try self.init(store: directory.file("store.json"), arguments: arguments, environment: environment, keeping: directory)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? logHandle.close()
    }

    public var isRunning: Bool { process.isRunning }

    /// What the server logged so far.
    public var log: String { Self.text(of: logURL) }

    private static func text(of url: URL) -> String {
        String(decoding: (try? Data(contentsOf: url)) ?? Data(), as: UTF8.self)
    }

    /// Sends `signal` and waits for the server to exit; SIGKILL after `timeout` seconds.
    /// Returns the exit status (the signal number when killed by a signal).
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, timeout: Double = 6) throws -> Int32 {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, signal)
        if !waitForExit(timeout: timeout) {
            // Say as much as can be known about the hang, then try the signal once more.
            let noticed = log.contains("received SIG") ? "it logged the signal" : "it did not log the signal (the handler never ran)"
            let threads = signalState()
            kill(process.processIdentifier, signal)
            let second: String
            if waitForExit(timeout: 3) {
                second = "it exited after the same signal was sent again (status \(process.terminationStatus))"
            } else {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                second = "it ignored the signal sent again too, and was killed"
            }
            throw HarnessError("""
                docserver did not exit within \(timeout) s of signal \(signal); \(noticed); \(second).
                Its threads' signal masks then: \(threads)
                Log: \(log)
                """)
        }
        return process.terminationStatus
    }

    /// The signal lines of /proc/<pid>/task/*/status (pending, blocked, ignored, caught), per thread.
    private func signalState() -> String {
        let tasks = "/proc/\(process.processIdentifier)/task"
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []
        return threads.sorted().map { thread in
            let status = (try? String(contentsOfFile: "\(tasks)/\(thread)/status", encoding: .utf8)) ?? ""
            let lines = status.split(separator: "\n").filter { line in
                ["Name:", "SigPnd:", "ShdPnd:", "SigBlk:", "SigIgn:", "SigCgt:"].contains { line.hasPrefix($0) }
            }
            return "[\(thread) " + lines.map { $0.replacingOccurrences(of: "\t", with: " ") }.joined(separator: ", ") + "]"
        }.joined(separator: " ")
    }

    /// Closes this end of the server's standard input, as the exit of the process that
    /// started it does: the server then stops as on SIGTERM.
    public func closeStandardInput() throws {
        try input.fileHandleForWriting.close()
    }

    /// Kills the server with SIGKILL, as a crash would.
    public func crash() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Whether the server exited within `timeout` seconds.
    public func waitForExit(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning { return false }
        process.waitUntilExit()
        return true
    }

    public var terminationReason: Process.TerminationReason { process.terminationReason }

    public static func environment(adding extra: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        // The tests choose every setting themselves.
        for name in ["DOCSERVER_HOST", "DOCSERVER_PORT", "DOCSERVER_AUTH_TOKEN", "DOCSERVER_MODEL", "DOCSERVER_STORE", "DOCSERVER_LOG_LEVEL"] {
            environment[name] = nil
        }
        environment.merge(extra) { _, new in new }
        return environment
    }

    /// One line from a pipe, waiting at most `timeout` seconds.
    private static func readLine(from descriptor: Int32, timeout: Double) throws -> String {
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { throw HarnessError("timed out after \(timeout) s") }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining, 1) * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }
            var byte: UInt8 = 0
            let count = read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { throw HarnessError("the output ended" + (bytes.isEmpty ? "" : " after \(String(decoding: bytes, as: UTF8.self).debugDescription)")) }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }
}
