@testable import DocumentServer
import DocumentProtocol
import Foundation
import Testing

/// How a streamed answer is cut into parts (``AnswerParts``): every element once, in order, no
/// part past its line's limit, and the last line's `result` with the rest and the count.
@Suite struct AnswerPartsTests {
    /// An element of `size` bytes: a JSON string.
    private static func element(_ number: Int, size: Int) -> [UInt8] {
        let digits = String(number)
        return Array(("\"" + digits + String(repeating: "x", count: max(0, size - digits.count - 2)) + "\"").utf8)
    }

    /// The elements of a part's or result's text, and its other members.
    private static func read(_ text: [UInt8]) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text)) as? [String: Any])
    }

    @Test(arguments: [(1_024, 10), (1_024, 300), (4_096, 37), (200_000, 1_000), (200_000, 70_000)])
    func everyElementComesOnceInOrderAndNoPartPassesItsLine(lineLimit: Int, elementSize: Int) throws {
        var parts = AnswerParts(resultType: .ids, lineLimit: lineLimit)
        var texts: [[UInt8]] = []
        let count = 500
        for number in 0..<count {
            let element = Self.element(number, size: elementSize)
            if element.count > lineLimit - 11 {
                #expect(throws: RPCError.self) { _ = try parts.add(element, limit: lineLimit) }
                return
            }
            if let part = try parts.add(element, limit: lineLimit) { texts.append(part) }
        }
        let (lastPart, result) = parts.finish(plan: Array(#"{"access":"scan"}"#.utf8))
        if let lastPart { texts.append(lastPart) }
        var seen: [String] = []
        for text in texts {
            #expect(text.count <= lineLimit)
            let ids = try #require(try Self.read(text)["ids"] as? [String])
            #expect(!ids.isEmpty)
            seen += ids
        }
        #expect(result.count <= lineLimit)
        let last = try Self.read(result)
        seen += try #require(last["ids"] as? [String])
        #expect(last["count"] as? Int == count)
        #expect((last["plan"] as? [String: Any])?["access"] as? String == "scan")
        #expect(seen.map { Int($0.prefix { $0.isNumber }) } == Array(0..<count))
        // Parts are filled: each but the last holds about the target, none is a handful of bytes.
        for text in texts.dropLast() { #expect(text.count + elementSize + 3 > parts.target) }
    }

    @Test func nothingFoundIsOneEmptyResult() throws {
        var parts = AnswerParts(resultType: .objects, lineLimit: 4_096)
        let (lastPart, result) = parts.finish(plan: nil)
        #expect(lastPart == nil)
        #expect(String(decoding: result, as: UTF8.self) == #"{"objects":[],"count":0}"#)
    }

    @Test func anElementTooLargeForALineIsRefusedAsAnAnswerTooLarge() throws {
        var parts = AnswerParts(resultType: .objects, lineLimit: 1_000)
        _ = try parts.add(Array(#"{"id":1}"#.utf8), limit: 1_100)
        #expect(throws: RPCError.tooLarge(.answer, limit: 1_100)) { _ = try parts.add(Self.element(2, size: 1_000), limit: 1_100) }
    }
}
