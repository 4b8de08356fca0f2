@testable import DocumentServer
import DocumentProtocol
import Foundation
import GraphCore
import JSONCore
import NIOCore
import Testing

/// A commit's notifications encoded once (``CommitNotifications``): the same bytes as the
/// record writer's, wire forms shared with the ``WireObjectCache``.
@Suite("Commit notifications")
struct CommitNotificationsTests {
    private static let sampleModel = SampleModelFile.model

    private static func tag(_ number: Int) throws -> ObjectID {
        try ObjectID(uri: "graph://S/Tag/\(number)", model: sampleModel.get())
    }

    private static func song(_ number: Int) throws -> ObjectID {
        try ObjectID(uri: "graph://S/Song/\(number)", model: sampleModel.get())
    }

    private static func tagSnapshot(_ number: Int, version: Int64 = 1, label: String, songs: [Int] = []) throws -> ObjectSnapshot {
        ObjectSnapshot(objectID: try tag(number), version: version, values: [.string(label), .objects(try songs.map(song))])
    }

    /// A commit of three Tags (labels that need escaping, one with Songs), a deletion, and the
    /// state after it.
    private static func commit(author: String?) throws -> (ChangeSet, FeedFilter.Record) {
        let inserted = [try tagSnapshot(1, label: #"a "quoted" label \ with / ü and "#),
                        try tagSnapshot(2, label: "line\nbreak\u{1}", songs: [3, 1])]
        let updated = [try tagSnapshot(3, version: 4, label: "probe-7")]
        let model = try sampleModel.get()
        let state = ReadState(sequence: 9, storeIdentifier: "S", model: model, snapshots: inserted + updated)
        let changes = inserted.map { ChangeSet.Change(id: $0.objectID, kind: .inserted, before: nil, after: $0) }
            + updated.map { ChangeSet.Change(id: $0.objectID, kind: .updated, before: $0, after: $0) }
            + [ChangeSet.Change(id: try tag(4), kind: .deleted, before: try tagSnapshot(4, label: "gone"), after: nil)]
        let set = ChangeSet(sequence: 9, author: author, timestamp: Date(timeIntervalSince1970: 1_764_000_000.123), changes: changes,
                            stateBefore: nil, stateAfter: state)
        let record = FeedFilter.Record(inserted: inserted, updated: updated, deleted: [try tag(4)], removed: [try tag(5)])
        return (set, record)
    }

    private static func filters() throws -> [FeedFilter] {
        let model = try sampleModel.get()
        let tag = try #require(model.entity(named: "Tag"))
        let predicate = try GraphCore.Predicate(format: "label BEGINSWITH %@", "probe")
        return [FeedFilter(entity: nil, predicate: nil, includeValues: true, readAccess: nil),
                FeedFilter(entity: tag, predicate: nil, includeValues: false, readAccess: nil),
                FeedFilter(entity: tag, predicate: predicate, includeValues: true, readAccess: nil),
                FeedFilter(entity: tag, predicate: predicate, includeValues: false, readAccess: nil)]
    }

    /// The members as the record writer writes them through a generator (braces cut off).
    private static func written(_ set: ChangeSet, _ record: FeedFilter.Record, _ filter: FeedFilter) throws -> [UInt8] {
        let object = try JSONText.make { out in
            try out.openObject()
            try FeedRecordWriter.members(set, record, includeValues: filter.includeValues, liveQuery: filter.isLiveQuery, to: out)
            try out.closeObject()
        }
        return Array(object.dropFirst().dropLast())
    }

    @Test("the members are byte for byte the record writer's, for every kind of filter, with and without the wire cache")
    func sameBytes() throws {
        for author in [nil, #"an "author" ü"#] {
            let (set, record) = try Self.commit(author: author)
            let shared = CommitNotifications(set, cache: nil)  // one for every kind, as the feed uses it
            for filter in try Self.filters() {
                let expected = try Self.written(set, record, filter)
                #expect(try shared.members(record, filter: filter) == expected)
                let plain = CommitNotifications(set, cache: nil)
                #expect(try plain.members(record, filter: filter) == expected)
                #expect(try plain.members(record, filter: filter) == expected, "asked again: from what it encoded")
                let cache = WireObjectCache(byteLimit: 1 << 20)
                let cached = CommitNotifications(set, cache: cache)
                #expect(try cached.members(record, filter: filter) == expected)
                // What it encoded is in the cache, as a reader would have put it there; read back, the same.
                #expect(try CommitNotifications(set, cache: cache).members(record, filter: filter) == expected)
            }
        }
    }

    @Test("an object's wire form comes from the cache when it holds that version, and is left there for get")
    func sharesTheWireCache() throws {
        let (set, record) = try Self.commit(author: nil)
        let filter = try Self.filters()[0]
        let cache = WireObjectCache(byteLimit: 1 << 20)
        let epoch = try #require(set.stateAfter).clearingEpoch
        // A reader's form of Tag 1 at version 1: used as it is.
        cache.insert(WireObjectCache.Entry(version: 1, bytes: Array("{READER}".utf8), epoch: epoch), for: try Self.tag(1))
        // Tag 3 at an older version than the commit's: not used, replaced.
        cache.insert(WireObjectCache.Entry(version: 3, bytes: Array("{OLD}".utf8), epoch: epoch), for: try Self.tag(3))
        let members = String(decoding: try CommitNotifications(set, cache: cache).members(record, filter: filter), as: UTF8.self)
        #expect(members.contains(#""inserted":[{READER},{"id":"graph://S/Tag/2""#), "\(members)")
        #expect(!members.contains("{OLD}"))
        let held = try #require(cache.cachedEntries([try Self.tag(2), try Self.tag(3)]))
        #expect(held.map(\.version) == [1, 4])
        let expected = try JSONText.make { try WireObjectEncoder.write(record.updated[0], to: $0) }
        #expect(held[1].bytes == expected, "the form get would answer")
    }

    @Test("a form never takes the place of a later version's")
    func neverOlderOverNewer() throws {
        let cache = WireObjectCache(byteLimit: 1 << 20)
        let id = try Self.tag(1)
        cache.insert(WireObjectCache.Entry(version: 5, bytes: Array("new".utf8)), for: id)
        cache.insertUnlessNewer(WireObjectCache.Entry(version: 4, bytes: Array("old".utf8)), for: id)
        #expect(cache.cachedEntries([id])?.first?.bytes == Array("new".utf8))
        cache.insertUnlessNewer(WireObjectCache.Entry(version: 5, bytes: Array("same".utf8)), for: id)
        #expect(cache.cachedEntries([id])?.first?.bytes == Array("same".utf8))
        cache.insertUnlessNewer(WireObjectCache.Entry(version: 6, bytes: Array("newer".utf8)), for: id)
        #expect(cache.cachedEntries([id])?.first?.bytes == Array("newer".utf8))
        #expect(cache.count == 1)
    }

    @Test("a notification's line is the JSON-RPC notification around the members, with its newline")
    func line() throws {
        let members = Array(#""seq":3,"author":null"#.utf8)
        let line = FeedRecordWriter.notificationLine(subscription: 12, members: members)
        let text = try #require(line.getString(at: line.readerIndex, length: line.readableBytes))
        #expect(text == #"{"jsonrpc":"2.0","method":"changes","params":{"subscription":12,"seq":3,"author":null}}"# + "\n")
    }
}
