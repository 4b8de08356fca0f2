import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a finished `docserver` command printed, and how it ended.
public struct CommandResult {
    public let status: Int32
    public let output: String
    public let errors: String
}

/// Runs `docserver` with `arguments` to its end (killed after `timeout` seconds).
public func runDocServer(_ arguments: [String], environment: [String: String] = [:], timeout: Double = 20) throws -> CommandResult {
    try runProgram(try DocServerBinary.url(), arguments, environment: ServerProcess.environment(adding: environment), timeout: timeout)
}

/// Runs a program to its end with this environment, its output in files (so that it never
/// blocks on a full pipe); killed after `timeout` seconds.
public func runProgram(_ executable: URL, _ arguments: [String], environment: [String: String], timeout: Double) throws -> CommandResult {
    let directory = try TemporaryDirectory()
    defer { withExtendedLifetime(directory) {} }
    let outputURL = directory.file("stdout"), errorURL = directory.file("stderr")
    _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
    let output = try FileHandle(forWritingTo: outputURL), errors = try FileHandle(forWritingTo: errorURL)
    defer { try? output.close(); try? errors.close() }
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = environment
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(5_000) }
    let text = { (url: URL) in String(decoding: (try? Data(contentsOf: url)) ?? Data(), as: UTF8.self) }
    if process.isRunning {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        throw HarnessError("\(executable.lastPathComponent) \(arguments.joined(separator: " ")) did not finish within \(timeout) s; stderr: \(text(errorURL))")
    }
    process.waitUntilExit()
    return CommandResult(status: process.terminationStatus, output: text(outputURL), errors: text(errorURL))
}
