import Foundation

/// Finds the release docserver binary a benchmark starts, or builds it.
public enum DocServerBinary {
    /// `explicit` (`--docserver PATH`), else `$DOCSERVER_BINARY`, else the newest of
    /// `candidates` (paths in `repository`); when none exists, runs `swift` with `build`
    /// (its output to standard error) in `repository` and returns `built` (a path in it).
    public static func locate(explicit: String?, repository: URL, candidates: [String], build: [String], built: String) throws -> String {
        if let path = explicit ?? ProcessInfo.processInfo.environment["DOCSERVER_BINARY"] {
            guard FileManager.default.isExecutableFile(atPath: path) else { throw BenchmarkError("no docserver executable at \(path)") }
            return path
        }
        let existing = candidates
            .map { repository.appendingPathComponent($0).path }
            .filter { FileManager.default.isExecutableFile(atPath: $0) }
            .sorted { modified($0) > modified($1) }
        if let newest = existing.first { return newest }
        guard let swift = which("swift") else { throw BenchmarkError("no docserver binary and no `swift` on PATH to build one") }
        FileHandle.standardError.write(Data("building docserver: swift \(build.joined(separator: " ")) in \(repository.path)\n".utf8))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: swift)
        process.arguments = build
        process.currentDirectoryURL = repository
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.standardError
        try process.run()
        process.waitUntilExit()
        let path = repository.appendingPathComponent(built).path
        guard process.terminationStatus == 0, FileManager.default.isExecutableFile(atPath: path) else {
            throw BenchmarkError("building docserver failed (exit status \(process.terminationStatus))")
        }
        return path
    }

    /// When the file at `path` was last modified (distantPast when unknown).
    public static func modified(_ path: String) -> Date {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? .distantPast
    }
}
