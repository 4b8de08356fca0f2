import Foundation

/// The `docserver` executable, built beside the test binary (`swift build --build-tests`), or at
/// `$DOCSERVER_BINARY`.
public enum DocServerBinary {
    public static func url() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["DOCSERVER_BINARY"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("docserver")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        throw HarnessError("docserver is not built next to \(testBinary.path): run `swift build --build-tests` first, or set DOCSERVER_BINARY")
    }
}
