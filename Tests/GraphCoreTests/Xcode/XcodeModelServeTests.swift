import Foundation
import Testing
import GraphCore
import ServerTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The real `docserver` binary with an Xcode model: `serve --model App.xcdatamodeld` and `model convert`.
@Suite struct XcodeModelServeTests {
    /// Sends one request line to the server and returns the reply line.
    private func request(_ line: String, to server: ServerProcess) throws -> String {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket() failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = server.port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw HarnessError("cannot connect to the server on port \(server.port)") }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let bytes = Array((line + "\n").utf8)
        guard bytes.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, 0) }) == bytes.count else {
            throw HarnessError("cannot send the request")
        }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !reply.contains(UInt8(ascii: "\n")) {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw HarnessError("the server closed the connection or did not answer") }
            reply += buffer[0..<count]
        }
        return String(decoding: reply.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }

    @Test func serveWithAnXcodeBundleStartsAndAnswersModelWithTheCurrentVersion() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--model", XcodeFixtures.shop.path])
        let reply = try request(#"{"jsonrpc":"2.0","id":1,"method":"model"}"#, to: server)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any])
        let result = try #require(object["result"] as? [String: Any], "\(reply)")
        let served = try ObjectModel(json: JSONSerialization.data(withJSONObject: result))
        let current = try ModelBundle(contentsOf: XcodeFixtures.shop).current
        #expect(served.versionHash == current.versionHash)
        #expect(served.entity(named: "Product")?.properties.map(\.name) == ["name", "sku"])
        _ = try server.stop()
    }

    @Test func serveWithARealBundleStarts() throws {
        let directory = try TemporaryDirectory()
        let bundle = XcodeFixtures.real.appendingPathComponent("bundles/SampleModel.xcdatamodeld")
        let server = try ServerProcess(in: directory, arguments: ["--model", bundle.path])
        let reply = try request(#"{"jsonrpc":"2.0","id":1,"method":"model"}"#, to: server)
        #expect(reply.contains(#""result""#))
        _ = try server.stop()
    }

    @Test func aSaveOverTheWireBreakingAnXcodeValueRuleIsRefusedWithTheRule() throws {
        let directory = try TemporaryDirectory()
        let version = directory.file("Notes.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Note">
                    <attribute name="title" attributeType="String" minValueString="2" maxValueString="5" regularExpressionString="[a-z]+"/>
                    <attribute name="draft" optional="YES" transient="YES" attributeType="String"/>
                </entity>
            </model>
            """.utf8).write(to: version.appendingPathComponent("contents"))
        let server = try ServerProcess(in: directory, arguments: ["--model", version.path])
        let save = { (title: String) in
            #"{"jsonrpc":"2.0","id":2,"method":"save","params":{"insert":[{"id":"n","entity":"Note","values":{"title":"\#(title)"}}]}}"#
        }
        let refused = try request(save("x"), to: server)
        #expect(refused.contains("has 1 characters, fewer than its minimum 2"), "\(refused)")
        let mismatch = try request(save("abc1"), to: server)
        #expect(mismatch.contains("does not match the pattern '[a-z]+'"), "\(mismatch)")
        let saved = try request(save("abc"), to: server)
        #expect(saved.contains(#""ids""#), "\(saved)")
        let transient = try request(
            #"{"jsonrpc":"2.0","id":3,"method":"save","params":{"insert":[{"id":"m","entity":"Note","values":{"title":"ab","draft":"x"}}]}}"#,
            to: server)
        #expect(transient.contains(#""error""#) && transient.contains("draft"), "\(transient)")
        _ = try server.stop()
    }

    @Test func modelConvertPrintsTheJSONModelAndTheNotesOnStandardError() throws {
        let result = try runDocServer(["model", "convert", XcodeFixtures.everything.path])
        #expect(result.status == 0, "\(result.errors)")
        let converted = try ObjectModel(json: Data(result.output.utf8))
        #expect(converted.versionHash == (try ObjectModel(contentsOf: XcodeFixtures.everything)).versionHash)
        #expect(result.errors.contains("Everything.xcdatamodel/contents:48: warning: Book.recentChapters: fetched properties are not supported"))
    }

    @Test func modelConvertExitsWithTwoAndTheLineOfEachError() throws {
        let result = try runDocServer(["model", "convert", XcodeFixtures.bad.appendingPathComponent("unknown-type.contents").path])
        #expect(result.status == 2)
        #expect(result.errors.contains("unknown-type.contents:4: error: A.x: unknown attributeType"))
        #expect(result.output.isEmpty)
    }

    @Test func modelConvertTakesABundleVersionByName() throws {
        let result = try runDocServer(["model", "convert", "--version", "Shop 10", XcodeFixtures.shop.path])
        #expect(result.status == 0)
        #expect(try ObjectModel(json: Data(result.output.utf8)).entity(named: "Product")?.properties.count == 3)
        let missing = try runDocServer(["model", "convert", "--version", "Shop 3", XcodeFixtures.shop.path])
        #expect(missing.status == 2 && missing.errors.contains("has no version 'Shop 3' (it has: Shop, Shop 2, Shop 10)"))
    }

    @Test func strictModelConvertFailsOnWarnings() throws {
        #expect(try runDocServer(["model", "convert", "--strict", XcodeFixtures.everything.path]).status == 1)
        #expect(try runDocServer(["model", "convert", "--strict", XcodeFixtures.shop.path]).status == 0)
    }
}
