import Foundation
import ServerTestSupport

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
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = Self.repository.appendingPathComponent("clients/python/src").path
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        let arguments = [file.path, String(decoding: try JSONSerialization.data(withJSONObject: input), as: UTF8.self)]
        let result = try runProgram(python, arguments, environment: environment, timeout: timeout)
        let printed = result.output
        guard result.status == 0 else {
            throw HarnessError("\(file.lastPathComponent) exited with status \(result.status); stdout: \(printed); stderr: \(result.errors)")
        }
        let last = printed.split(separator: "\n").last.map(String.init) ?? ""
        guard let answer = try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any] else {
            throw HarnessError("\(file.lastPathComponent) printed no JSON object last: \(printed.debugDescription); stderr: \(result.errors)")
        }
        return answer
    }
}
