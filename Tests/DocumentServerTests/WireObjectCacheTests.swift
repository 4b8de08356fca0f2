@testable import DocumentServer
import Foundation
import GraphCore
import Testing

/// The cache of wire forms: which entries a reader may use, and how a full cache makes room.
@Suite("Wire object cache")
struct WireObjectCacheTests {
    private static let sampleModel = SampleModelFile.model

    private static func song(_ number: Int) throws -> ObjectID {
        try ObjectID(uri: "graph://S/Song/\(number + 1)", model: sampleModel.get())
    }

    private static func snapshot(_ number: Int, version: Int64 = 1) throws -> ObjectSnapshot {
        ObjectSnapshot(objectID: try song(number), version: version, values: [])
    }

    /// An entry of `length` bytes of wire form.
    private static func entry(version: Int64 = 1, length: Int = 100, epoch: Int64 = 0) -> WireObjectCache.Entry {
        WireObjectCache.Entry(version: version, bytes: [UInt8](repeating: UInt8(ascii: "x"), count: length), epoch: epoch)
    }

    /// The cost of one entry of `length` bytes.
    private static func cost(_ length: Int) -> Int { length + WireObjectCache.entryOverhead }

    @Test("an entry answers only for its version and epoch")
    func versionAndEpoch() throws {
        let cache = WireObjectCache(byteLimit: 1 << 20)
        cache.insert(Self.entry(version: 2, epoch: 5), for: try Self.song(1))
        #expect(cache.entry(for: try Self.snapshot(1, version: 2), epoch: 5)?.version == 2)
        #expect(cache.entry(for: try Self.snapshot(1, version: 3), epoch: 5) == nil)
        #expect(cache.entry(for: try Self.snapshot(1, version: 2), epoch: 6) == nil)
        #expect(cache.entry(for: try Self.snapshot(2, version: 2), epoch: 5) == nil)
    }

    @Test("a full cache evicts one entry per new one, and never holds more than its limit")
    func holdsItsLimit() throws {
        let limit = 10 * Self.cost(100)
        let cache = WireObjectCache(byteLimit: limit)
        for number in 0..<1_000 {
            cache.insert(Self.entry(), for: try Self.song(number))
            #expect(cache.byteCount <= limit)
            #expect(cache.count == min(number + 1, 10))
        }
        // The last ten inserted are the ones held (nothing was read: first in, first out).
        #expect(cache.cachedEntries(try (990..<1_000).map(Self.song)) != nil)
        #expect(cache.cachedEntries([try Self.song(989)]) == nil)
        #expect(cache.byteCount == limit)
    }

    @Test("an entry read since the hand last passed gets a second chance")
    func secondChance() throws {
        let cache = WireObjectCache(byteLimit: 4 * Self.cost(100))
        for number in 0..<4 { cache.insert(Self.entry(), for: try Self.song(number)) }
        #expect(cache.entry(for: try Self.snapshot(0), epoch: 0) != nil)  // read: kept once
        cache.insert(Self.entry(), for: try Self.song(4))
        #expect(cache.cachedEntries([try Self.song(0)]) != nil)
        #expect(cache.cachedEntries([try Self.song(1)]) == nil, "the oldest unread entry went")
        cache.insert(Self.entry(), for: try Self.song(5))
        #expect(cache.cachedEntries([try Self.song(2)]) == nil)
        #expect(cache.count == 4)
    }

    @Test("when every entry was read, an insert still evicts within its sweep and keeps the limit")
    func everythingRead() throws {
        let held = WireObjectCache.sweepLimit * 3
        let limit = held * Self.cost(100)
        let cache = WireObjectCache(byteLimit: limit)
        for number in 0..<held { cache.insert(Self.entry(), for: try Self.song(number)) }
        for number in 0..<held { #expect(cache.entry(for: try Self.snapshot(number), epoch: 0) != nil) }
        for number in held..<(held + 10) {
            cache.insert(Self.entry(), for: try Self.song(number))
            #expect(cache.count == held)
            #expect(cache.byteCount == limit)
        }
    }

    @Test("a larger entry evicts as many as it needs; one larger than the cache is not held; 0 caches nothing")
    func sizes() throws {
        let cache = WireObjectCache(byteLimit: 4 * Self.cost(100))
        for number in 0..<4 { cache.insert(Self.entry(), for: try Self.song(number)) }
        cache.insert(Self.entry(length: 2 * Self.cost(100) + 100), for: try Self.song(9))
        #expect(cache.count == 2)
        #expect(cache.cachedEntries([try Self.song(9)]) != nil)
        #expect(cache.byteCount <= 4 * Self.cost(100))

        cache.insert(Self.entry(length: 4 * Self.cost(100)), for: try Self.song(10))
        #expect(cache.cachedEntries([try Self.song(10)]) == nil)
        #expect(cache.count == 2, "nothing was evicted for it")

        let none = WireObjectCache(byteLimit: 0)
        none.insert(Self.entry(length: 1), for: try Self.song(1))
        #expect(none.count == 0 && none.byteCount == 0)
    }

    @Test("replacing and removing entries keeps the count of bytes exact, and freed slots are used again")
    func replaceAndRemove() throws {
        let cache = WireObjectCache(byteLimit: 1 << 20)
        for number in 0..<100 { cache.insert(Self.entry(length: 10 + number), for: try Self.song(number)) }
        cache.insert(Self.entry(version: 2, length: 500), for: try Self.song(7))
        #expect(cache.entry(for: try Self.snapshot(7, version: 2), epoch: 0)?.bytes.count == 500)
        cache.remove(try (0..<50).map(Self.song))
        let expected = (50..<100).reduce(0) { $0 + Self.cost(10 + $1) }
        #expect(cache.count == 50)
        #expect(cache.byteCount == expected)
        for number in 200..<250 { cache.insert(Self.entry(length: 10), for: try Self.song(number)) }
        #expect(cache.count == 100)
        #expect(cache.byteCount == expected + 50 * Self.cost(10))
        cache.remove(try (0..<300).map(Self.song))
        #expect(cache.count == 0 && cache.byteCount == 0)
    }

    @Test("IDs of one hierarchy are one entry, held under the entity inserted last")
    func hierarchy() throws {
        let model = try ObjectModel(json: Data(#"""
            {"entities":[{"name":"Animal","abstract":true,"attributes":[{"name":"name","type":"string"}]},
                         {"name":"Dog","parent":"Animal"},{"name":"Cat","parent":"Animal"}]}
            """#.utf8))
        let dog = try ObjectID(uri: "graph://S/Dog/7", model: model), cat = try ObjectID(uri: "graph://S/Cat/7", model: model)
        let cache = WireObjectCache(byteLimit: 1 << 20)
        cache.insert(Self.entry(), for: dog)
        cache.insert(Self.entry(), for: cat)
        #expect(cache.count == 1)
        #expect(cache.entry(for: ObjectSnapshot(objectID: cat, version: 1, values: []), epoch: 0) != nil)
        #expect(cache.entry(for: ObjectSnapshot(objectID: dog, version: 1, values: []), epoch: 0) == nil, "held for the Cat")
    }
}
