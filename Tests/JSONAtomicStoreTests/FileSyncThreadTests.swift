import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore

/// The thread that waits for a journal's `fdatasync` while the saving thread takes the save
/// into the store's indexes: its results, its one sync at a time, and a JSON store with fetch
/// indexes whose saves use it (and fail on it).
struct FileSyncThreadTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test func aSyncReportsItsErrorAndOnlyOneRunsAtATime() throws {
        let thread = FileSyncThread()
        let ticket = try #require(thread.start(-1))
        #expect(thread.start(-1) == nil, "a second sync started while the first is out")
        #expect(ticket.wait() == EBADF)

        let path = directory.file("synced").path
        let handle = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(handle >= 0)
        defer { close(handle) }
        #expect(write(handle, "x", 1) == 1)
        let again = try #require(thread.start(handle), "the thread stays busy after its ticket was waited for")
        #expect(again.wait() == 0)
        #expect(thread.syncCount == 2)
    }

    @Test func syncsStartedFromManyThreadsEachEndOnce() throws {
        let thread = FileSyncThread()
        let path = directory.file("many").path
        let handle = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(handle >= 0)
        defer { close(handle) }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<50 {
                // A busy thread leaves the caller to sync itself.
                let code = thread.start(handle).map { $0.wait() } ?? (fdatasync(handle) == 0 ? 0 : errno)
                results.append(code)
            }
        }
        let codes = results.codes
        #expect(codes.count == 400 && codes.allSatisfy { $0 == 0 })
        #expect(thread.syncCount >= 1 && thread.syncCount <= 400)
    }

    /// Results collected from many threads.
    private final class Results: @unchecked Sendable {
        // Safe to share: `all` is only touched with `lock` held.
        private let lock = NSLock()
        private var all: [Int32] = []
        func append(_ code: Int32) { lock.withLock { all.append(code) } }
        var codes: [Int32] { lock.withLock { all } }
    }

    /// A store of songs with a fetch index on `plays`.
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Song", attributes: [AttributeDescription("title", .string), AttributeDescription("plays", .int64)],
                              fetchIndexes: [FetchIndexDescription(name: "byPlays", elements: [.init(.property("plays"))])]),
        ])
    }

    /// The titles of the songs with `plays`, through the index, checked against a scan.
    static func titles(plays: Int64, in store: JSONAtomicStore) throws -> [String] {
        let request = FetchRequest(entityName: "Song", predicate: .key("plays") == .int(plays))
        #expect(try store.explain(request).access != .scan, "the fetch does not use the index")
        func title(_ values: [Value]) -> String? {
            if case .string(let title)? = values.first { title } else { nil }
        }
        let indexed = try store.fetch(request).snapshots.compactMap { title($0.values) }.sorted()
        let scanned = store.cacheNodes().filter { $0.values.count > 1 && $0.values[1] == .int(plays) }
            .compactMap { title($0.values) }.sorted()
        #expect(indexed == scanned, "the index disagrees with a scan")
        return indexed
    }

    @Test func aStoreWithIndexesTakesItsSavesInWhileTheJournalSyncsAndUndoesThemWhenTheSyncFails() throws {
        let url = directory.file("songs.json")
        let model = try Self.model()
        let open = try OpenStore(url, model: model)
        let context = open.context()
        // Twenty saves of 100 songs (enough index entries to hand the sync over): the shared
        // thread may be busy with another store's sync now and then.
        for save in 0..<20 {
            for n in save * 100..<save * 100 + 100 {
                _ = try context.insert("Song", values: ["title": .string("song \(n)"), "plays": .int(Int64(n % 10))])
            }
            try context.save()
        }
        #expect(open.store.journal.syncsBeside > 0, "no save took its index upkeep in while its journal synced")
        let before = try Self.titles(plays: 3, in: open.store)
        #expect(before.count == 200)
        let journal = try Data(contentsOf: journalURL(url))

        // Moves songs between keys, deletes some and inserts more; the disk then fails the sync.
        let songs = try context.fetch(FetchRequest(entityName: "Song", predicate: .key("plays") == 3))
        for (offset, song) in songs.enumerated() {
            if offset % 2 == 0 { try song.setValue(.int(4), forKey: "plays") } else { try context.delete(song) }
        }
        for n in 2_000..<2_060 { _ = try context.insert("Song", values: ["title": .string("song \(n)"), "plays": 3]) }
        open.store.journal.failNextSync = true
        let error = #expect(throws: JSONStoreError.self) { try context.save() }
        guard case .io(_, "fdatasync", EIO)? = error else {
            Issue.record("the failed sync reported \(String(describing: error))")
            return
        }
        #expect(try Self.titles(plays: 3, in: open.store) == before, "the failed save left changes in the index")
        #expect(try Self.titles(plays: 4, in: open.store).count == 200)
        #expect(try Data(contentsOf: journalURL(url)) == journal, "the journal is cut back to its last good record")

        // The same changes then save, and the index and the reopened store hold them.
        try context.save()
        let moved = try Self.titles(plays: 3, in: open.store)
        #expect(moved.count == 60)
        #expect(try Self.titles(plays: 4, in: open.store).count == 300)
        open.close()
        let reopened = try OpenStore(url, model: model)
        defer { reopened.close() }
        #expect(try Self.titles(plays: 3, in: reopened.store) == moved)
    }
}
