import Foundation
import ServerTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A Python program run by a test against a live server, with the project's `docstore`
/// package (clients/python/src) on its path.
///
/// ```swift
/// let script = try PythonScript(source, in: directory)
/// let answer = try script.run(["port": .string("7878")])   // the JSON object it printed last
/// ```
///
/// The program gets one argument, a JSON object (its input), and prints a JSON object as its
/// last line of output. A non-zero exit, or no JSON, fails with its standard error.
struct PythonScript {
    /// `python3` on PATH, or nil (the tests that need it are skipped then).
    static let interpreter: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("python3") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// The project's root, found from this file's path.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    let file: URL

    /// Writes `source` to a file in `directory`.
    init(_ source: String, named name: String, in directory: TemporaryDirectory) throws {
        file = directory.file(name)
        try source.write(to: file, atomically: true, encoding: .utf8)
    }

    /// Runs the program with `input` (killed after `timeout` seconds); returns the JSON object
    /// it printed last.
    func run(_ input: [String: Any], timeout: Double = 10) throws -> [String: Any] {
        guard let python = Self.interpreter else { throw HarnessError("python3 is not on PATH") }
        let directory = file.deletingLastPathComponent()
        let outputURL = directory.appendingPathComponent(file.lastPathComponent + ".stdout")
        let errorURL = directory.appendingPathComponent(file.lastPathComponent + ".stderr")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputURL), errors = try FileHandle(forWritingTo: errorURL)
        defer { try? output.close(); try? errors.close() }

        let process = Process()
        process.executableURL = python
        process.arguments = [file.path, String(decoding: try JSONSerialization.data(withJSONObject: input), as: UTF8.self)]
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = Self.repository.appendingPathComponent("clients/python/src").path
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw HarnessError("\(file.lastPathComponent) did not finish within \(timeout) s; stderr: \(Self.text(of: errorURL))")
        }
        process.waitUntilExit()
        let printed = Self.text(of: outputURL)
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw HarnessError("\(file.lastPathComponent) exited with status \(process.terminationStatus); stdout: \(printed); stderr: \(Self.text(of: errorURL))")
        }
        let last = printed.split(separator: "\n").last.map(String.init) ?? ""
        guard let answer = try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any] else {
            throw HarnessError("\(file.lastPathComponent) printed no JSON object last: \(printed.debugDescription); stderr: \(Self.text(of: errorURL))")
        }
        return answer
    }

    private static func text(of url: URL) -> String {
        String(decoding: (try? Data(contentsOf: url)) ?? Data(), as: UTF8.self)
    }
}
