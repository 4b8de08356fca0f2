import Foundation

/// An executable of this package, built beside the test binary (`swift build --build-tests`),
/// or at the path in an environment variable.
public enum BuiltExecutable {
    public static func url(named name: String, overriddenBy variable: String) throws -> URL {
        if let path = ProcessInfo.processInfo.environment[variable], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        throw HarnessError("\(name) is not built next to \(testBinary.path): run `swift build --build-tests` first, or set \(variable)")
    }
}

/// The `docserver` executable, built beside the test binary, or at `$DOCSERVER_BINARY`.
public enum DocServerBinary {
    public static func url() throws -> URL {
        try BuiltExecutable.url(named: "docserver", overriddenBy: "DOCSERVER_BINARY")
    }
}
