import DocumentProtocol
@testable import DocumentServer
import Foundation
import GraphCore
import JSONCore
import ServerTestSupport
import Testing

/// A plain `save` read straight from its line (`SaveRequestLine`, then `SaveCall.read`) is
/// the call `SaveCall.parse` makes of the same line's JSON tree, and every line whose save the
/// general way refuses (or does not read as a save at all) is left to the general way.
@Suite struct SaveCallLineTests {
    static let model = """
    {"entities": [
      {"name": "Thing",
       "attributes": [{"name": "i16", "type": "int16", "optional": true}, {"name": "i32", "type": "int32", "optional": true},
                      {"name": "i64", "type": "int64", "optional": true}, {"name": "d", "type": "double", "optional": true},
                      {"name": "f", "type": "float", "optional": true}, {"name": "dec", "type": "decimal", "optional": true},
                      {"name": "s", "type": "string", "optional": true}, {"name": "b", "type": "bool", "optional": true},
                      {"name": "dt", "type": "date", "optional": true}, {"name": "bin", "type": "binary", "optional": true},
                      {"name": "u", "type": "uuid", "optional": true}, {"name": "link", "type": "uri", "optional": true}],
       "relationships": [{"name": "owner", "destination": "Person", "inverse": "things", "optional": true},
                         {"name": "tags", "destination": "Tag", "inverse": "things", "toMany": true},
                         {"name": "pet", "destination": "Animal", "inverse": "thing", "optional": true}]},
      {"name": "Person", "attributes": [{"name": "name", "type": "string"}],
       "relationships": [{"name": "things", "destination": "Thing", "inverse": "owner", "toMany": true}]},
      {"name": "Tag", "attributes": [{"name": "label", "type": "string"}],
       "relationships": [{"name": "things", "destination": "Thing", "inverse": "tags", "toMany": true}]},
      {"name": "Animal", "abstract": true, "attributes": [{"name": "name", "type": "string"}],
       "relationships": [{"name": "thing", "destination": "Thing", "inverse": "pet", "optional": true}]},
      {"name": "Dog", "parent": "Animal", "attributes": [{"name": "barks", "type": "bool", "optional": true}]}
    ]}
    """

    /// What the general way makes of `line`: the save's call as text, or nil when it refuses
    /// the line (or the line is no save).
    static func general(_ line: String, model: ObjectModel) -> String? {
        Array(line.utf8).withUnsafeBytes { bytes -> String? in
            guard let message = try? JSONValue.parse(bytes, maximumDepth: 128),
                  case .success(let request) = RPCRequest.parse(message), request.method == "save", request.id != nil,
                  let call = try? SaveCall.parse(request.params, model: model) else { return nil }
            return render(call)
        }
    }

    /// What the fast path makes of `line`: the call as text, or nil when it leaves the line alone.
    static func direct(_ line: String, ids: inout ObjectIDReader) -> String? {
        Array(line.utf8).withUnsafeBytes { bytes -> String? in
            guard let request = SaveRequestLine.read(bytes), let call = SaveCall.read(request, in: bytes, ids: &ids) else { return nil }
            return render(call)
        }
    }

    /// Everything a call holds, in one text (values with their exact cases and payloads).
    static func render(_ call: SaveCall) -> String {
        func reference(_ reference: SaveCall.Reference) -> String {
            switch reference {
            case .existing(let id, let path): "existing(\(id.uriRepresentation) \(id.entity.name) @\(path))"
            case .temporary(let id, let path): "temporary(\(id) @\(path))"
            }
        }
        func values(_ values: [(key: String, value: SaveCall.Assignment)]) -> String {
            values.map { key, assignment in
                switch assignment {
                case .attribute(let value):
                    if case .double(let number) = value { return "\(key)=double(\(number.bitPattern))" }
                    return "\(key)=\(String(reflecting: value))"
                case .toOne(let target): return "\(key)=toOne(\(target.map(reference) ?? "nil"))"
                case .toMany(let targets): return "\(key)=toMany(\(targets.map(reference).joined(separator: ",")))"
                }
            }.joined(separator: " ")
        }
        var lines: [String] = []
        for insert in call.inserts { lines.append("insert \(insert.temporaryID) \(insert.entity.name) \(values(insert.values))") }
        for update in call.updates { lines.append("update \(update.id.uriRepresentation) \(update.id.entity.name) v\(update.version) \(values(update.values))") }
        for delete in call.deletes { lines.append("delete \(delete.id.uriRepresentation) \(delete.id.entity.name) v\(delete.version)") }
        lines.append("author \(call.author ?? "-") limit \(call.answerLimit.map { "\($0.resultBytes)" } ?? "-")")
        return lines.joined(separator: "\n")
    }

    static func save(_ params: String, id: String = "1") -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"save","params":\#(params)}"#
    }

    /// Lines the fast path must take, each a save the general way accepts.
    static let plain: [String] = [
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"i64":5}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":9223372036854775807,"values":{"i64":-9223372036854775808,"i32":-2147483648,"i16":32767}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"d":-0.0,"f":1.5e-3,"s":"héllo wörld ☃ 𝄞","b":true}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"d":1e308,"f":3.4e38,"dec":"12.50","b":false,"s":""}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"dec":123456789012345678,"dt":"2024-02-29T12:00:00Z","u":"6BA7B810-9DAD-11D1-80B4-00C04FD430C8"}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"bin":"AQID","link":"https://example.com/a?b=c","d":"NaN","f":"-Infinity"}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"i64":null,"s":null,"owner":null,"tags":[]}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":null},{"id":"graph://S/Thing/2","version":2}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":3,"values":{"owner":"graph://S/Person/4","tags":["graph://S/Tag/1","graph://S/Tag/2"],"pet":"graph://S/Dog/3"}}]}"#),
        save(#"{"insert":[{"id":"t1","entity":"Thing","values":{"owner":"p","tags":["graph://S/Tag/1","g"],"pet":"d"}},{"id":"p","entity":"Person","values":{"name":"Ann"}},{"id":"g","entity":"Tag","values":{"label":"x"}},{"id":"d","entity":"Dog","values":{"name":"Rex","barks":true}}]}"#),
        save(#"{"insert":[{"entity":"Person","id":"graph:/x"}],"update":null,"delete":[{"version":1,"id":"graph://S/Thing/7"}]}"#),
        save(#"{"delete":[{"id":"graph://S/Thing/1","version":1},{"id":"graph://S/Person/1","version":2}]}"#),
        save(#"{"delete":[{"id":"graph://S/Thing/1","version":1}],"update":[{"id":"graph://S/Thing/2","version":1,"values":{}}],"insert":[]}"#),
        save(#"{}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"s":"a"}}]}"#, id: #""text id""#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"s":"a"}}]}"#, id: "-0"),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"s":"a"}}]}"#, id: "12345678901234567890"),
        #" { "params" : { "update" : [ { "values" : { "i16" : -1 , "s" : " x " } , "version" : 2 , "id" : "graph://S/Thing/1" } ] } , "method" : "save" , "id" : 3 , "jsonrpc" : "2.0" } "#,
        "{\"jsonrpc\":\"2.0\",\n\"id\":7,\"method\":\"save\",\"params\":{\"update\":[{\"id\":\"graph://S/Thing/1\",\"version\":1,\"values\":{\"s\":\"z\"}}]}}\r",
        save(#"{"update":[{"id":"graph://S/Thing/01","version":1,"values":{"s":"a"}},{"id":"graph://S/Thing/a%41","version":1}]}"#),
        save(#"{"update":[{"id":"graph://S/Dog/5","version":1,"values":{"name":"Fido","barks":null,"thing":"graph://S/Thing/1"}}]}"#),
    ]

    /// Lines the fast path must leave alone: saves it does not read, and every kind of error.
    static let unusual: [String] = [
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"s":"a\"b"}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"s":"\u00e9"}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"bin":{"base64":"AQID"}}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"s":"a","s":"b"}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"id":"graph://S/Thing/1"}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1}],"update":[]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1},{"id":"graph://S/Thing/1","version":2}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1}],"delete":[{"id":"graph://S/Thing/1","version":1}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":0}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":-1}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1.0}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":9223372036854775808}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":"1"}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1"}]}"#),
        save(#"{"update":[{"version":1}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"i16":32768}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"i64":9223372036854775808}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"i64":1.5}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"d":1e309}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"f":1e39}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"dec":"1e999999"}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"dec":1.5}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"b":1}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"s":5}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"dt":"yesterday"}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"u":"not-a-uuid"}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"nope":1}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"s":["a"]}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"tags":null}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"tags":"graph://S/Tag/1"}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"tags":[1]}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"owner":["graph://S/Person/1"]}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"owner":"graph://S/Tag/1"}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"owner":"t9"}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"owner":"graph://S/Person/x"}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"pet":"graph://S/Person/1"}}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":[]}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":"x"}]}"#),
        save(#"{"update":[{"id":"graph://S/Nope/1","version":1}]}"#),
        save(#"{"update":[{"id":"graph:///Thing/t1","version":1}]}"#),
        save(#"{"update":[{"id":"t1","version":1}]}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"extra":1}]}"#),
        save(#"{"update":{"id":"graph://S/Thing/1","version":1}}"#),
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1},]}"#),
        save(#"{"insert":[{"id":"t","entity":"Animal","values":{"name":"x"}}]}"#),
        save(#"{"insert":[{"id":"t","entity":"Nope"}]}"#),
        save(#"{"insert":[{"id":"","entity":"Person"}]}"#),
        save(#"{"insert":[{"id":"graph://x","entity":"Person"}]}"#),
        save(#"{"insert":[{"id":"t","entity":"Person"},{"id":"t","entity":"Person"}]}"#),
        save(#"{"insert":[{"id":"t","entity":"Person","version":1}]}"#),
        save(#"{"insert":[{"id":"t"}]}"#),
        save(#"{"insert":[{"id":"t","entity":"Person","values":{"name":"a"}}],"other":[]}"#),
        save(#"{"delete":[{"id":"graph://S/Thing/1","version":1,"values":{}}]}"#),
        save(#"{"delete":[{"id":"graph://S/Thing/1"}]}"#),
        save("[]"),
        save(#""x""#),
        #"{"jsonrpc":"2.0","method":"save","params":{"delete":[{"id":"graph://S/Thing/1","version":1}]}}"#,
        #"{"jsonrpc":"2.0","id":null,"method":"save","params":{}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"save"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"save","params":{},"extra":1}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"get","params":{}}"#,
        #"[{"jsonrpc":"2.0","id":1,"method":"save","params":{}}]"#,
        #"{"jsonrpc":"2.0","id":1,"method":"save","params":{}}x"#,
        save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"s":"a"}}]}"#, id: "1.5"),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"save\",\"params\":{\"update\":[{\"id\":\"graph://S/Thing/1\",\"version\":1,\"values\":{\"s\":\"a\tb\"}}]}}",
        "", "{", "{}", "null",
    ]

    @Test func everyPlainLineGivesTheCallTheGeneralWayGives() throws {
        let model = try ObjectModel(json: Data(Self.model.utf8), path: "test")
        var ids = ObjectIDReader(model: model)
        for line in Self.plain {
            let general = Self.general(line, model: model)
            #expect(general != nil, "\(line)")
            #expect(Self.direct(line, ids: &ids) == general, "\(line)")
        }
    }

    @Test func everyOtherLineIsLeftToTheGeneralWay() throws {
        let model = try ObjectModel(json: Data(Self.model.utf8), path: "test")
        var ids = ObjectIDReader(model: model)
        for line in Self.unusual {
            let direct = Self.direct(line, ids: &ids)
            #expect(direct == nil || direct == Self.general(line, model: model), "\(line)")
        }
        // Invalid UTF-8 in a string value: the general way refuses the line, so must the fast path.
        for bytes: [UInt8] in [[0xFF], [0xC3], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80]] {
            let line = Array(Self.save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"s":"a"#).utf8) + bytes + Array(#""}}]}}"#.utf8)
            let direct = line.withUnsafeBytes { SaveRequestLine.read($0) }
            #expect(direct == nil, "\(bytes)")
        }
    }

    /// A random save line: members in any order, whitespace anywhere, values of every kind
    /// (right and wrong for their property), now and then a member, an escape or a duplicate
    /// the fast path leaves alone.
    static func randomLine(_ random: inout SplitMix64) -> String {
        func pick<T>(_ options: [T]) -> T { options[Int.random(in: 0..<options.count, using: &random)] }
        func space() -> String { pick(["", "", "", " ", "\t", " \r ", "\n"]) }
        func chance(_ n: Int) -> Bool { Int.random(in: 0..<n, using: &random) == 0 }
        let objectIDs = ["graph://S/Thing/1", "graph://S/Thing/2", "graph://S/Thing/3", "graph://S/Person/1", "graph://S/Tag/1",
                         "graph://S/Dog/2", "graph://S/Animal/2", "graph://T/Thing/1", "graph://S/Thing/01", "graph://S/Thing/x",
                         "graph://S/Nope/1", "graph:///Thing/t1", "graph://S/Thing/\\u0031", "graph://S/Tag/-1"]
        let temporaryIDs = ["t1", "t2", "p", "g", "d", "", "graph://t"]
        let numbers = ["0", "-0", "1", "-1", "32767", "32768", "-32769", "2147483648", "9223372036854775807", "9223372036854775808",
                       "-9223372036854775808", "1.5", "-2.25e-3", "1E10", "1e309", "0.1", "123456789012345678901234567890", "3.4e38", "1e39"]
        let strings = ["", "a", "héllo", "☃𝄞", "NaN", "-Infinity", "2024-01-02T03:04:05Z", "2024-13-01T00:00:00Z", "1.25",
                       "6BA7B810-9DAD-11D1-80B4-00C04FD430C8", "AQID", "https://x.y/z", "a\\\"b", "\\u00e9", "a b/c"]
        func scalar() -> String {
            switch Int.random(in: 0..<10, using: &random) {
            case 0...3: return pick(numbers)
            case 4...6: return "\"\(pick(strings))\""
            case 7: return pick(["true", "false"])
            case 8: return "null"
            default: return pick(["[]", "[1]", "{}", #"{"a":1}"#])
            }
        }
        func values(_ keys: [String], relationships: [String: [String]]) -> String {
            var members: [String] = []
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                let key = chance(12) ? "nope" : pick(keys)
                let value: String
                if let targets = relationships[key], !chance(6) {
                    if key == "tags" || key == "things" {
                        value = "[" + (0..<Int.random(in: 0...3, using: &random)).map { _ in "\(space())\"\(pick(targets))\"" }.joined(separator: ",") + "]"
                    } else {
                        value = chance(5) ? "null" : "\"\(pick(targets))\""
                    }
                } else {
                    value = scalar()
                }
                if members.contains(where: { $0.hasPrefix("\"\(key)\"") }) && !chance(8) { continue }
                members.append("\"\(key)\"\(space()):\(space())\(value)")
            }
            return "{" + members.map { space() + $0 + space() }.joined(separator: ",") + "}"
        }
        let targets = objectIDs + temporaryIDs
        func thingValues() -> String {
            values(["i16", "i32", "i64", "d", "f", "dec", "s", "b", "dt", "bin", "u", "link", "owner", "tags", "pet"],
                   relationships: ["owner": targets, "tags": targets, "pet": targets])
        }
        func object(_ members: [String]) -> String {
            var members = members
            if chance(25) { members.append(#""extra":1"#) }
            members.shuffle(using: &random)
            return "{" + members.map { space() + $0 + space() }.joined(separator: ",") + "}"
        }
        func version() -> String { chance(10) ? pick(["0", "-1", "1.0", "\"1\"", "9223372036854775808"]) : String(Int.random(in: 1...40, using: &random)) }
        var params: [String] = []
        if chance(2) {
            let inserts = (0..<Int.random(in: 0...3, using: &random)).map { _ -> String in
                let entity = chance(15) ? pick(["Animal", "Nope"]) : pick(["Thing", "Person", "Tag", "Dog"])
                var members = [#""id":"\#(pick(temporaryIDs))""#, #""entity":"\#(entity)""#]
                if !chance(4) {
                    let body: String
                    switch entity {
                    case "Person": body = values(["name", "things"], relationships: ["things": targets])
                    case "Tag": body = values(["label", "things"], relationships: ["things": targets])
                    case "Dog": body = values(["name", "barks", "thing"], relationships: ["thing": targets])
                    default: body = thingValues()
                    }
                    members.append(#""values":\#(body)"#)
                }
                return object(members)
            }
            params.append(#""insert":[\#(inserts.joined(separator: ","))]"#)
        }
        if chance(2) {
            let updates = (0..<Int.random(in: 0...3, using: &random)).map { _ -> String in
                var members = [#""id":"\#(pick(objectIDs))""#, #""version":\#(version())"#]
                if !chance(4) { members.append(#""values":\#(chance(15) ? "null" : thingValues())"#) }
                return object(members)
            }
            params.append(#""update":[\#(updates.joined(separator: ","))]"#)
        }
        if chance(3) {
            let deletes = (0..<Int.random(in: 0...2, using: &random)).map { _ in object([#""id":"\#(pick(objectIDs))""#, #""version":\#(version())"#]) }
            params.append(#""delete":[\#(deletes.joined(separator: ","))]"#)
        }
        params.shuffle(using: &random)
        let id = pick(["1", "-7", "\"abc\"", "18446744073709551615", "1.5", "null"])
        var members = [#""jsonrpc":"2.0""#, #""id":\#(id)"#, #""method":"save""#,
                       #""params":{\#(params.map { space() + $0 + space() }.joined(separator: ","))}"#]
        members.shuffle(using: &random)
        return space() + "{" + members.map { space() + $0 + space() }.joined(separator: ",") + "}" + space()
    }

    @Test func randomLinesGiveTheCallTheGeneralWayGivesOrAreLeftToIt() throws {
        let model = try ObjectModel(json: Data(Self.model.utf8), path: "test")
        var ids = ObjectIDReader(model: model)
        var random = SplitMix64(seed: 44)
        var taken = 0, accepted = 0
        for _ in 0..<5000 {
            let line = Self.randomLine(&random)
            let general = Self.general(line, model: model)
            let direct = Self.direct(line, ids: &ids)
            if general != nil { accepted += 1 }
            if direct != nil { taken += 1 }
            #expect(direct == nil || direct == general, "\(line)")
        }
        // Most saves the general way accepts are taken by the fast path.
        #expect(accepted > 300)
        #expect(taken * 10 > accepted * 6, "\(taken) of \(accepted)")
    }
}
