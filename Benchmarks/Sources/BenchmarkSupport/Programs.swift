import Foundation

/// Runs a program to its end; returns its standard output (standard error is passed
/// through, or dropped when `quiet`).
public func runProgram(_ executable: String, _ arguments: [String], in directory: URL? = nil, quiet: Bool = false) throws -> (status: Int32, output: String) {
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

/// Runs a program to its end and returns its standard output; an exit status other than 0 is an error.
public func programOutput(_ executable: String, _ arguments: [String]) throws -> String {
    let (status, output) = try runProgram(executable, arguments)
    guard status == 0 else { throw BenchmarkError("\(executable) \(arguments.joined(separator: " ")) exited with \(status)") }
    return output
}

/// The full path of `program` found on PATH, or nil.
public func which(_ program: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for directory in path.split(separator: ":") {
        let candidate = "\(directory)/\(program)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
}
