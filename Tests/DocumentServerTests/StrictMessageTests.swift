import Foundation
import ServerTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Strict JSON over the wire, and the store files `docserver serve` creates, checked on the
/// real binary over a real socket.
@Suite struct StrictMessageTests {
    @Test("a duplicate key or a string left open after the request is a -32700 with its place, and nothing runs")
    func duplicateKeysAndTrailingStringsAreParseErrors() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let duplicate = #"{"jsonrpc":"2.0","id":1,"method":"model","method":"ping"}"#
        let answer = try JSON(parsing: client.exchange(duplicate))
        #expect(answer["error"]["code"].int == -32700)
        #expect(answer["error"]["data"]["offset"].int == 49)
        #expect(answer["error"]["data"]["reason"].string == #"the key "method" appears twice in one object"#)
        #expect(answer["result"].string == nil)

        let trailing = #"{"jsonrpc":"2.0","id":1,"method":"ping"}"abc"#
        let refused = try JSON(parsing: client.exchange(trailing))
        #expect(refused["error"]["code"].int == -32700)
        #expect(refused["error"]["data"]["offset"].int == 40)
        #expect(refused["error"]["data"]["reason"].string == "unexpected text after the JSON value")

        #expect(try client.exchange(#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#) == #"{"jsonrpc":"2.0","id":2,"result":"pong"}"#)
        #expect(try server.stop() == 0)
    }

    @Test("serve creates the store and lock files 0600, or 0640 with --share-with-group", arguments: [false, true])
    func storeFileModes(_ share: Bool) throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: share ? ["--share-with-group"] : [])
        let expected: mode_t = share ? 0o640 : 0o600
        for path in [server.storeURL.path, server.storeURL.path + ".lock"] {
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect(info.st_mode & 0o7777 == expected, "\(path)")
        }
        #expect(try server.stop() == 0)
    }
}
