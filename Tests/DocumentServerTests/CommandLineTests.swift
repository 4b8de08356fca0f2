import Foundation
import ServerTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `docserver`'s command line: help, `check`, `ping`.
@Suite struct CommandLineTests {
    @Test(arguments: [
        (["--help"], ["serve", "check", "ping"]),
        (["serve", "--help"], ["--model", "--store", "--host", "--port", "--auth-token", "--max-line-bytes"]),
        (["check", "--help"], ["--model", "--store"]),
        (["ping", "--help"], ["--host", "--port", "--auth-token"]),
    ])
    func helpExitsZeroAndNamesTheOptions(arguments: [String], mentions: [String]) throws {
        let result = try runDocServer(arguments)
        #expect(result.status == 0, "\(result.errors)")
        for word in mentions {
            #expect(result.output.contains(word), "docserver \(arguments.joined(separator: " ")) does not mention \(word)")
        }
    }

    @Test(arguments: [["frobnicate"], ["serve", "--port", "70000"], ["serve", "--colour", "red"], ["check"]])
    func badArgumentsExitNonZeroWithAMessage(arguments: [String]) throws {
        let result = try runDocServer(arguments)
        #expect(result.status != 0)
        #expect(!result.errors.isEmpty)
    }

    /// A store with the sample data, written by a server that has stopped (or still runs).
    private func sampleStore(in directory: TemporaryDirectory, keepRunning: Bool = false) throws -> ServerProcess {
        let server = try ServerProcess(in: directory)
        _ = try SampleData.insert(through: try server.connect())
        if !keepRunning { #expect(try server.stop() == 0) }
        return server
    }

    private var sampleModelPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/docserver/Resources/sample.model.json").path
    }

    @Test func checkOfAGoodStoreExitsZeroWithAOneLineSummary() throws {
        let directory = try TemporaryDirectory()
        let server = try sampleStore(in: directory)
        let result = try runDocServer(["check", "--model", sampleModelPath, "--store", server.storeURL.path])
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 1, "\(result.output)")
        #expect(result.output.contains("10"), "the summary counts the 10 objects: \(result.output)")
    }

    @Test func checkWorksOnTheStoreOfARunningServer() throws {
        let directory = try TemporaryDirectory()
        let server = try sampleStore(in: directory, keepRunning: true)
        let result = try runDocServer(["check", "--model", sampleModelPath, "--store", server.storeURL.path])
        #expect(result.status == 0, "\(result.errors)")
        #expect(try server.connect().result("ping").string == "pong")
        #expect(try server.stop() == 0)
    }

    @Test func checkOfADamagedStoreExitsNonZeroWithTheError() throws {
        let directory = try TemporaryDirectory()
        let server = try sampleStore(in: directory)
        let bytes = try #require(fileBytes(server.storeURL))
        let truncated = directory.file("truncated.json")
        try bytes.prefix(bytes.count / 2).write(to: truncated)
        let result = try runDocServer(["check", "--model", sampleModelPath, "--store", truncated.path])
        #expect(result.status != 0)
        #expect(result.errors.contains("truncated.json"), "the error names the file: \(result.errors)")
        #expect(fileBytes(truncated) == bytes.prefix(bytes.count / 2), "check changes nothing")

        // A reference to an object that is not there.
        var text = String(decoding: bytes, as: UTF8.self)
        text = text.replacingOccurrences(of: #""album":3"#, with: #""album":999"#)
        text = text.replacingOccurrences(of: #""album":4"#, with: #""album":999"#)
        let dangling = directory.file("dangling.json")
        try Data(text.utf8).write(to: dangling)
        #expect(text.contains(#""album":999"#), "the songs' album references were replaced")
        let check = try runDocServer(["check", "--model", sampleModelPath, "--store", dangling.path])
        #expect(check.status != 0, "\(check.output)")
        #expect(!check.errors.isEmpty)

        let missing = try runDocServer(["check", "--model", sampleModelPath, "--store", directory.file("nothing.json").path])
        #expect(missing.status != 0)
        #expect(missing.errors.contains("nothing.json"))
    }

    @Test func checkAgainstAnotherModelExitsNonZero() throws {
        let directory = try TemporaryDirectory()
        let server = try sampleStore(in: directory)
        let model = directory.file("notes.model.json")
        try Data(#"{"entities":[{"name":"Note","attributes":[{"name":"text","type":"string"}]}]}"#.utf8).write(to: model)
        let result = try runDocServer(["check", "--model", model.path, "--store", server.storeURL.path])
        #expect(result.status != 0)
        #expect(!result.errors.isEmpty)
    }

    @Test func pingOfARunningServerExitsZero() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let result = try runDocServer(["ping", "--port", String(server.port)])
        #expect(result.status == 0, "\(result.errors)")
        #expect(try server.stop() == 0)
    }

    @Test func pingSendsTheTokenItIsGiven() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--auth-token", "t0ken"])
        #expect(try runDocServer(["ping", "--port", String(server.port), "--auth-token", "t0ken"]).status == 0)
        #expect(try runDocServer(["ping", "--port", String(server.port)], environment: ["DOCSERVER_AUTH_TOKEN": "t0ken"]).status == 0)
        let wrong = try runDocServer(["ping", "--port", String(server.port), "--auth-token", "nope"])
        #expect(wrong.status != 0)
        #expect(!wrong.errors.isEmpty)
        #expect(try runDocServer(["ping", "--port", String(server.port)]).status != 0)
        #expect(try server.stop() == 0)
    }

    @Test func pingOfAClosedPortExitsNonZeroWithAMessage() throws {
        let port = try Self.closedPort()
        let result = try runDocServer(["ping", "--port", String(port), "--timeout", "2"])
        #expect(result.status != 0)
        #expect(!result.errors.isEmpty)
    }

    /// A loopback port nobody listens on: bound, then released.
    static func closedPort() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket: errno \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else { throw HarnessError("bind: errno \(errno)") }
        return UInt16(bigEndian: address.sin_port)
    }
}
