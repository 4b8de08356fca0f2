import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A server this benchmark starts (docserver, redis-server): standard output is a pipe the
/// benchmark reads, standard error goes to a log file; `stop()` sends SIGTERM.
final class ChildProcess {
    let name: String
    let logURL: URL
    private let process = Process()
    private let output = Pipe()
    private var buffered: [UInt8] = []

    init(name: String, executable: String, arguments: [String], logURL: URL) throws {
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
    }

    var processIdentifier: Int32 { process.processIdentifier }

    /// The next line of standard output, or nil at its end or after `timeout` seconds.
    func readLine(timeout: Double) throws -> String? {
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
    func stop(timeout: Double = 10) -> String {
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
    func logTail(_ count: Int = 20) -> String {
        let text = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(count).joined(separator: "\n")
    }
}

/// Runs a program to its end; returns its standard output (standard error is passed
/// through, or dropped when `quiet`).
func runProgram(_ executable: String, _ arguments: [String], in directory: URL? = nil, quiet: Bool = false) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardInput = FileHandle.nullDevice
    if quiet { process.standardError = FileHandle.nullDevice }
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// The full path of `program` found on PATH, or nil.
func which(_ program: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for directory in path.split(separator: ":") {
        let candidate = "\(directory)/\(program)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
}

/// A TCP port that was free a moment ago (bound to port 0, then released).
func freePort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw BenchmarkError("socket(): errno \(errno)") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
            bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
        }
    }
    guard bound else { throw BenchmarkError("cannot bind a free port: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}
