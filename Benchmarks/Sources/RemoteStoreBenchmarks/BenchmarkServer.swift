import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A `docserver serve --model MODEL --store STORE --port 0` started for the benchmark, its
/// standard error in a log file. Stopped (SIGTERM) by ``stop()``, and also when the benchmark
/// itself is interrupted, so that no server outlives it.
final class BenchmarkServer {
    let host: String
    let port: Int
    let logURL: URL
    private let process: Process

    init(binary: String, model: URL, store: URL, log: URL, timeout: Double = 60) throws {
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw RemoteBenchmarkError("cannot create \(log.path)") }
        let process = Process(), output = Pipe()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--model", model.path, "--store", store.path, "--port", "0", "--log-level", "warning"]
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let pid = process.processIdentifier
        BenchmarkServer.running.withLock { _ = $0.insert(pid) }

        let line = Self.readLine(output.fileHandleForReading.fileDescriptor, timeout: timeout)
        let prefix = "listening on "
        guard let line, line.hasPrefix(prefix), let colon = line.lastIndex(of: ":"), let port = Int(line[line.index(after: colon)...]) else {
            _ = Self.stop(process)
            throw RemoteBenchmarkError("docserver did not print `listening on HOST:PORT` within \(Int(timeout)) s (first line: \(line ?? "none")); log:\n\(Self.text(of: log))")
        }
        var host = String(line[line.index(line.startIndex, offsetBy: prefix.count)..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.host = host
        self.port = port
        self.process = process
        logURL = log
    }

    deinit { _ = stop() }

    var processIdentifier: Int32 { process.processIdentifier }

    var url: URL? { URL(string: "docstore://\(host.contains(":") ? "[\(host)]" : host):\(port)") }

    /// Sends SIGTERM, waits up to 10 s (then SIGKILL); says how the server ended.
    func stop() -> String { Self.stop(process) }

    private static func stop(_ process: Process) -> String {
        let pid = process.processIdentifier
        defer { BenchmarkServer.running.withLock { _ = $0.remove(pid) } }
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning {
                kill(pid, SIGKILL)
                process.waitUntilExit()
                return "killed after 10 s without exiting on SIGTERM"
            }
        }
        process.waitUntilExit()
        return process.terminationReason == .exit ? "exit status \(process.terminationStatus)" : "killed by signal \(process.terminationStatus)"
    }

    // MARK: - Finding the binary

    /// `--docserver PATH`, else `$DOCSERVER_BINARY`, else the newest of `<repo>/.build/release/docserver`,
    /// `<repo>/.build-bench/release/docserver` and `<repo>/Benchmarks/.build/release/docserver`; when none
    /// exists, builds it in this benchmark package's build directory, whose release build of the
    /// main package's libraries it shares
    /// (`swift build -c release --package-path Benchmarks --product docserver`).
    static func locateBinary(explicit: String?, repository: URL) throws -> String {
        if let path = explicit ?? ProcessInfo.processInfo.environment["DOCSERVER_BINARY"] {
            guard FileManager.default.isExecutableFile(atPath: path) else { throw RemoteBenchmarkError("no docserver executable at \(path)") }
            return path
        }
        let candidates = [".build/release/docserver", ".build-bench/release/docserver", "Benchmarks/.build/release/docserver"]
            .map { repository.appendingPathComponent($0).path }
            .filter { FileManager.default.isExecutableFile(atPath: $0) }
            .sorted { modified($0) > modified($1) }
        if let newest = candidates.first { return newest }
        let arguments = ["swift", "build", "-c", "release", "--package-path", "Benchmarks", "--product", "docserver"]
        FileHandle.standardError.write(Data("building docserver: \(arguments.joined(separator: " ")) in \(repository.path)\n".utf8))
        let build = Process()
        build.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        build.arguments = arguments
        build.currentDirectoryURL = repository
        build.standardInput = FileHandle.nullDevice
        build.standardOutput = FileHandle.standardError
        try build.run()
        build.waitUntilExit()
        let built = repository.appendingPathComponent("Benchmarks/.build/release/docserver").path
        guard build.terminationStatus == 0, FileManager.default.isExecutableFile(atPath: built) else {
            throw RemoteBenchmarkError("building docserver failed (exit status \(build.terminationStatus))")
        }
        return built
    }

    static func modified(_ path: String) -> Date {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? .distantPast
    }

    // MARK: - Interruption

    private static let running = Mutex<Set<Int32>>([])

    /// On SIGINT, SIGTERM or SIGHUP: SIGTERM to the servers still running, remove `directory`, exit.
    static func stopServersOnInterrupt(removing directory: URL) {
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                for pid in BenchmarkServer.running.withLock({ $0 }) { kill(pid, SIGTERM) }
                try? FileManager.default.removeItem(at: directory)
                exit(128 + signalNumber)
            }
            source.resume()
            // Kept for the life of the process on purpose: a released source stops watching.
            _ = Unmanaged.passRetained(source as AnyObject)
        }
    }

    // MARK: - Helpers

    private static func readLine(_ descriptor: Int32, timeout: Double) -> String? {
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(remaining * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            var byte: UInt8 = 0
            let count = read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }

    private static func text(of url: URL) -> String {
        String(decoding: (try? Data(contentsOf: url)) ?? Data(), as: UTF8.self)
    }
}
