import Foundation
import GraphCore
@testable import PostgresStore
import Testing

/// The commits kept from notifications answer only with an unbroken run right after the number
/// asked for (and reaching the last one asked for); anything else is left to the history table.
struct CommitNoticesTests {
    /// A payload of commits numbered `numbers`, each updating the Song with its number.
    private func payload(_ numbers: ClosedRange<Int64>) -> String {
        "[" + numbers.map { #"[\#($0), 1700000000123, "ann", ["Song"], [\#($0 * 10)], "u"]"# }.joined(separator: ", ") + "]"
    }

    @Test func aPayloadIsReadIntoCommits() throws {
        let commits = try #require(CommitNotices.commits(in: #"[[7, 1700000000123, null, ["Song", "Album"], [3, 4], "id"]]"#))
        #expect(commits == [StoreCommit(sequence: 7, time: Date(timeIntervalSince1970: 1_700_000_000.123), author: nil,
                                        objects: [CommittedObject(entity: "Song", reference: 3, kind: .inserted),
                                                  CommittedObject(entity: "Album", reference: 4, kind: .deleted)])])
    }

    @Test func aPayloadCarriesEachObjectsPreviousValuesOrNone() throws {
        let model = try TestModel.make()
        let reader = PreviousValuesReader(model: model, storeIdentifier: "S")
        let payload = #"[[7, 1700000000123, null, ["Song", "Album"], [3, 4], "ud", ["[2, {\"title\": \"Old\", \"album\": [\"Album\", 4]}]", null]], "#
            + #"[8, 1700000000124, null, ["Song"], [3], "u", null]]"#
        let commits = try #require(CommitNotices.commits(in: payload, previous: reader))
        #expect(commits.map(\.sequence) == [7, 8])
        let song = try #require(model.entity(named: "Song")), album = try #require(model.entity(named: "Album"))
        let recorded = try #require(commits[0].objects[0].previous)
        #expect(recorded.version == 2)
        #expect(recorded.values[try #require(song.index(ofProperty: "title"))] == .string("Old"))
        #expect(recorded.values[try #require(song.index(ofProperty: "album"))]
            == .object(ObjectID(entity: album, storeIdentifier: "S", reference: .int(4))))
        #expect(commits[0].objects[1].previous == nil && commits[1].objects[0].previous == nil)
        // Without a reader (or with text not of the form) nothing is read, and the commits are.
        #expect(CommitNotices.commits(in: payload)?.allSatisfy { $0.objects.allSatisfy { $0.previous == nil } } == true)
        let odd = #"[[7, 1700000000123, null, ["Song"], [3], "u", ["[2, {\"plays\": \"many\"}]"]]]"#
        #expect(CommitNotices.commits(in: odd, previous: reader)?.first?.objects.first?.previous == nil)
    }

    @Test(arguments: [
        #"[[1, 2, null, ["Song"], [1], "u", ["a", "b"]]]"#, #"[[1, 2, null, ["Song"], [1], "u", [1]]]"#,
        #"[[1, 2, null, ["Song"], [1], "u", null, 3]]"#,
        "12", "", "[", "[]x", #"[[1, 2, null, ["Song"], [1, 2], "u"]]"#, #"[[1, 2, null, ["Song"], [1], "x"]]"#,
        #"[[1, 2, null, ["Song"], [1], "uu"]]"#, #"[[1, 2, null, ["Song"], [1.5], "u"]]"#, #"[[1, 2, null]]"#,
        #"[[1, 2, null, [], [], ""], [3, 2, null, [], [], ""]]"#, #"[[99999999999999999999, 2, null, [], [], ""]]"#,
        #"[[9223372036854775807, 2, null, [], [], ""], [-9223372036854775808, 2, null, [], [], ""]]"#,
    ])
    func aPayloadThatIsNotCommitsInARowIsIgnored(payload: String) {
        #expect(CommitNotices.commits(in: payload) == nil)
        let notices = CommitNotices()
        notices.receive(payload)
        #expect(notices.commits(after: 0, through: nil, limit: 10) == nil)
    }

    /// Any client of the database may `NOTIFY` on the channel: a payload cut or changed anywhere
    /// reads as nothing or as commits in a row, never traps.
    @Test func cutAndChangedPayloadsAreReadAsNothingOrAsCommitsInARow() {
        var random = SystemRandomNumberGenerator()
        let base = Array(#"[[9223372036854775806, -9223372036854775808, "a\"\u00e9\ud83d\ude00", ["Song", "Album"], [3, -4], "iu"], [9223372036854775807, 0, null, [], [], ""]]"#.utf8)
        #expect(CommitNotices.commits(in: String(decoding: base, as: UTF8.self))?.map(\.sequence) == [9_223_372_036_854_775_806, .max])
        let pieces = Array(#"[]{}",:-0123456789eE.\u nul"#.utf8) + [0x00, 0xFF, 0x0A]
        for _ in 0..<20_000 {
            var bytes = base
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[at] = pieces[Int.random(in: 0..<pieces.count, using: &random)]
                case 1: bytes.remove(at: at)
                default: bytes.insert(pieces[Int.random(in: 0..<pieces.count, using: &random)], at: at)
                }
                if bytes.isEmpty { break }
            }
            if Bool.random(using: &random) { bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &random))) }
            let payload = String(decoding: bytes, as: UTF8.self)
            if let commits = CommitNotices.commits(in: payload) {
                #expect(!commits.isEmpty)
                #expect(zip(commits, commits.dropFirst()).allSatisfy { $1.sequence == $0.sequence + 1 }, "\(payload)")
            }
            CommitNotices().receive(payload)
        }
    }

    /// The same for payloads with previous values, and for the texts of previous values
    /// themselves (read from a notification or the history table, which any client of the
    /// database may write): cut or changed anywhere, they read as nothing or as values that
    /// rebuild an object without trapping, whatever the object after the commit holds.
    @Test func cutAndChangedPreviousValuesReadAsNothingOrAsValuesThatRebuildAnObject() throws {
        var random = SystemRandomNumberGenerator()
        let model = try TestModel.make()
        let reader = PreviousValuesReader(model: model, storeIdentifier: "S")
        let album = try #require(model.entity(named: "Album")), song = try #require(model.entity(named: "Song"))
        let text = #"[9223372036854775807, {"title": "B\"lue\u00e9", "released": "2024-02-29T12:00:00.125Z", "#
            + #""artist": ["Artist", -9223372036854775808], "songs": {"at": 2, "replacing": 1, "was": [["Song", 7], ["Song", 8]]}}]"#
        #expect(reader.values(text, entity: "Album")?.splices.count == 1)
        let songText = #"[3, {"plays": 12, "rating": 1e308, "tags": {"added": [["Tag", 4]], "removed": [["Tag", 5]]}, "album": null}]"#
        #expect(reader.values(songText, entity: "Song")?.targets.count == 1)
        let noticeBase = #"[[5, 1, null, ["Album", "Song"], [1, 2], "uu", ["# + (try jsonString(text)) + ", " + (try jsonString(songText)) + "]]]"
        #expect(CommitNotices.commits(in: noticeBase, previous: reader)?.first?.objects.allSatisfy { $0.previous != nil } == true)
        let pieces = Array(#"[]{}",:-0123456789eE.\u nul"#.utf8) + [0x00, 0xFF, 0x0A]
        func mutated(_ base: [UInt8]) -> String {
            var bytes = base
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                guard !bytes.isEmpty else { break }
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[at] = pieces[Int.random(in: 0..<pieces.count, using: &random)]
                case 1: bytes.remove(at: at)
                default: bytes.insert(pieces[Int.random(in: 0..<pieces.count, using: &random)], at: at)
                }
            }
            if Bool.random(using: &random) { bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &random))) }
            return String(decoding: bytes, as: UTF8.self)
        }
        // Objects after the commit with no, one and four targets: splices fit some and not others.
        let albumID = ObjectID(entity: album, storeIdentifier: "S", reference: .int(1))
        let songs = (0..<4).map { ObjectID(entity: song, storeIdentifier: "S", reference: .int(Int64($0))) }
        let afters: [ObjectSnapshot?] = [nil] + [0, 1, 4].map { count in
            ObjectSnapshot(objectID: albumID, version: 1, values: album.properties.map { property in
                property.relationship?.isToMany == true ? .objects(Array(songs.prefix(count))) : .null
            })
        }
        for _ in 0..<10_000 {
            if let values = reader.values(mutated(Array(text.utf8)), entity: "Album"),
               let rebuilt = values.snapshot(of: albumID, after: afters[Int.random(in: 0..<afters.count, using: &random)]) {
                #expect(rebuilt.values.count == album.properties.count)
            }
            _ = reader.values(mutated(Array(songText.utf8)), entity: "Song")
            if let commits = CommitNotices.commits(in: mutated(Array(noticeBase.utf8)), previous: reader) {
                #expect(commits.allSatisfy { $0.objects.allSatisfy { ($0.previous?.values.keys.allSatisfy { $0 >= 0 }) ?? true } })
            }
        }
    }

    /// `text` as a JSON string literal.
    private func jsonString(_ text: String) throws -> String {
        String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
    }

    @Test func onlyAnUnbrokenRunRightAfterTheNumberAskedForIsAnswered() throws {
        let notices = CommitNotices()
        notices.receive(payload(5...6))
        notices.receive(payload(7...7))
        notices.receive("8")  // too long to carry: only its number
        notices.receive(payload(9...10))
        #expect(notices.commits(after: 3, through: nil, limit: 10) == nil)  // 4 was not received
        #expect(notices.commits(after: 4, through: nil, limit: 10)?.map(\.sequence) == [5, 6, 7])
        #expect(notices.commits(after: 4, through: 6, limit: 10)?.map(\.sequence) == [5, 6])
        #expect(notices.commits(after: 4, through: 9, limit: 10) == nil)  // 8 is missing: the table has it
        #expect(notices.commits(after: 4, through: 9, limit: 2)?.map(\.sequence) == [5, 6])
        #expect(notices.commits(after: 8, through: 10, limit: 10)?.map(\.sequence) == [9, 10])
        // Passed numbers are dropped.
        #expect(notices.commits(after: 4, through: nil, limit: 10) == nil)
        #expect(notices.commits(after: 10, through: nil, limit: 10) == nil)
        #expect(notices.commits(after: .max, through: nil, limit: 10) == nil)
        #expect(notices.commits(after: 0, through: nil, limit: 0) == nil)
    }

    @Test func numbersThatGoBackStartTheListOverAndTheListIsBounded() throws {
        let notices = CommitNotices()
        notices.receive(payload(20...21))
        notices.receive(payload(3...4))  // a database restored, or a listener made again
        #expect(notices.commits(after: 2, through: nil, limit: 10)?.map(\.sequence) == [3, 4])
        #expect(notices.commits(after: 19, through: nil, limit: 10) == nil)  // 20 and 21 were dropped
        for first in stride(from: Int64(22), through: 10_000, by: 5) { notices.receive(payload(first...(first + 4))) }
        #expect(notices.commits(after: 21, through: nil, limit: 10) == nil)  // dropped first
        let last = try #require(notices.commits(after: 10_001 - Int64(CommitNotices.capacity / 2), through: nil, limit: .max))
        #expect(last.last?.sequence == 10_001)
    }
}
