import Foundation
import PostgresTestSupport
import GraphCore
import PostgresStore
import Testing

/// The history table a server writes with each save: numbered in commit order without gaps,
/// read back with what each save changed, and announced to listeners.
@Suite(.enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct CommitHistoryTests {
    /// The metadata of a save of the given parts (each the objects a writer changed, and its author).
    private func parts(_ parts: (objects: [ManagedObject], author: String?)...) -> CommitMetadata {
        CommitMetadata(parts: parts.map { CommitPart(author: $0.author, objects: $0.objects.map(\.objectID)) })
    }

    @Test func savesWithPartsAreNumberedInCommitOrderAndReadBackWithWhatTheyChanged() throws {
        let fixture = try PostgresFixture(), other = try fixture.secondCoordinator()
        let history = try PostgresHistory(url: fixture.url)
        defer { history.close() }
        #expect(try history.latestSequence() == 0)

        let first = try fixture.context.insert("Artist", values: ["name": "Nina"])
        #expect(try fixture.context.save(metadata: CommitMetadata()).sequences.isEmpty)  // without parts: no history row
        try first.set("name", "Nina S.")
        #expect(try fixture.context.save(metadata: parts(([first], "ann"))).sequences == [1])

        // The other coordinator's save follows, and a save without parts writes no row.
        let reader = ObjectContext(coordinator: other.coordinator)
        let read = try reader.existingObject(with: first.objectID)
        try read.set("name", "Nina Simone")
        #expect(try reader.save(metadata: parts(([read], nil), ([], "bob"))).sequences == [2, 3])

        let commits = try history.commits(after: 0)
        #expect(commits.map(\.sequence) == [1, 2, 3])
        #expect(commits.map(\.author) == ["ann", nil, "bob"])
        guard case .int(let reference) = first.objectID.referenceObject else { throw PostgresStoreError.damagedSchema("no reference") }
        #expect(commits[0].objects == [CommittedObject(entity: "Artist", reference: reference, kind: .updated)])
        #expect(commits[1].objects == [CommittedObject(entity: "Artist", reference: reference, kind: .updated)])
        #expect(commits[2].objects.isEmpty)  // a part that names no object: an empty slice, not NULL
        #expect(try history.commits(after: 1, through: 2).map(\.sequence) == [2])
        #expect(try history.latestSequence() == 3)
    }

    @Test func aSaveThatFailsLeavesNoNumberUsed() throws {
        let fixture = try PostgresFixture(), other = try fixture.secondCoordinator()
        let history = try PostgresHistory(url: fixture.url)
        defer { history.close() }
        let artist = try fixture.context.insert("Artist", values: ["name": "Nina"])
        try fixture.context.save()
        let staleContext = ObjectContext(coordinator: other.coordinator)
        let stale = try staleContext.existingObject(with: artist.objectID)
        try artist.set("name", "first")
        try fixture.context.save(metadata: parts(([artist], nil)))

        try stale.set("name", "second")
        #expect(throws: GraphError.self) { try staleContext.save(metadata: parts(([stale], nil))) }

        // A version named by a request is checked even when the save does not write the row.
        let fresh = ObjectContext(coordinator: other.coordinator)
        _ = try fresh.insert("Artist", values: ["name": "another"])
        #expect(throws: GraphError.self) {
            try fresh.save(metadata: CommitMetadata(parts: [CommitPart(author: nil)], readVersions: [artist.objectID: 1]))
        }

        fixture.context.reset()
        let again = try fixture.context.existingObject(with: artist.objectID)
        try again.set("name", "third")
        try fixture.context.save(metadata: parts(([again], nil)))
        #expect(try history.commits(after: 0).map(\.sequence) == [1, 2])
    }

    /// Three coordinators save at once while a reader watches the table: every save gets a
    /// number of its own, the numbers run 1...N, and the reader never sees a number before every
    /// smaller one (the lock is taken inside the statement that numbers, and the last number is
    /// read after it is granted).
    @Test func concurrentSavesOfSeveralCoordinatorsAreNumberedInCommitOrderWithoutGaps() throws {
        let fixture = try PostgresFixture()
        let fixtures = [fixture, try fixture.secondCoordinator(), try fixture.secondCoordinator()]
        let history = try PostgresHistory(url: fixture.url)
        defer { history.close() }
        let savesEach = 40
        let numbers = SavedNumbers()
        let done = DispatchGroup()
        for (index, fixture) in fixtures.enumerated() {
            // Each coordinator is used by its one thread only.
            nonisolated(unsafe) let saver = fixture
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                do {
                    for save in 0..<savesEach {
                        let artist = try saver.context.insert("Artist", values: ["name": .string("saver \(index) save \(save)")])
                        let metadata = CommitMetadata(parts: [CommitPart(author: "saver \(index)", objects: [artist.objectID])])
                        numbers.append(try saver.context.save(metadata: metadata).sequences)
                    }
                } catch {
                    numbers.fail("saver \(index): \(error)")
                }
            }
        }
        var views = 0
        while done.wait(timeout: .now()) == .timedOut {
            let seen = try history.commits(after: 0).map(\.sequence)
            #expect(seen == Array(0..<seen.count).map { Int64($0) + 1 }, "the history showed a gap")
            views += 1
        }
        let total = fixtures.count * savesEach
        #expect(numbers.failures.isEmpty, "\(numbers.failures)")
        #expect(numbers.all.sorted() == (1...total).map(Int64.init))
        #expect(try history.commits(after: 0).map(\.sequence) == (1...total).map(Int64.init))
        #expect(views > 0)
    }

    @Test func aListenerIsToldOfEachCommitWithHistory() throws {
        let fixture = try PostgresFixture()
        let history = try PostgresHistory(url: fixture.url)
        defer { history.close() }
        let told = DispatchSemaphore(value: 0)
        try history.listenForCommits { _ in told.signal() }
        #expect(history.isListening)
        let artist = try fixture.context.insert("Artist", values: ["name": "Nina"])
        try fixture.context.save()
        try artist.set("name", "Nina S.")
        try fixture.context.save(metadata: parts(([artist], nil)))
        #expect(told.wait(timeout: .now() + 20) == .success)
    }
}

/// A commit's notification carries its history rows, so that a listening server takes another
/// server's commit without reading the history table; what it reads is the same either way.
@Suite(.enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct CommitNotificationTests {
    @Test func aListenerReadsTheSameCommitsAsTheHistoryTableIncludingOnesTooLongToCarry() throws {
        let fixture = try PostgresFixture()
        let listening = try PostgresHistory(url: fixture.url), table = try PostgresHistory(url: fixture.url)
        defer {
            listening.close()
            table.close()
        }
        let told = DispatchSemaphore(value: 0)
        try listening.listenForCommits { _ in told.signal() }
        let artist = try fixture.context.insert("Artist", values: ["name": "Nina"])
        try fixture.context.save()
        try artist.set("name", "Nina S.")
        try fixture.context.save(metadata: CommitMetadata(parts: [CommitPart(author: "ann \"the\" writer", objects: [artist.objectID]),
                                                                  CommitPart(author: nil)]))
        // 400 inserts in one part: rows longer than a notification may carry.
        let many = try (0..<400).map { try fixture.context.insert("Artist", values: ["name": .string("artist \($0)")]) }
        try fixture.context.save(metadata: CommitMetadata(parts: [CommitPart(author: "bulk", objects: many.map(\.objectID))]))
        try artist.set("name", "Nina Simone")
        try fixture.context.save(metadata: CommitMetadata(parts: [CommitPart(author: "é", objects: [artist.objectID])]))
        for _ in 0..<3 { #expect(told.wait(timeout: .now() + 20) == .success) }

        let expected = try table.commits(after: 0)
        #expect(expected.map(\.sequence) == [1, 2, 3, 4])
        #expect(expected[2].objects.count == 400)
        #expect(try listening.commits(after: 0) == expected)
        #expect(try listening.commits(after: 0, through: 2) == Array(expected.prefix(2)))
        #expect(try listening.commits(after: 2, through: 4) == Array(expected.suffix(2)))
        #expect(try listening.commits(after: 3, limit: 1) == [expected[3]])
        #expect(try listening.commits(after: 4).isEmpty)
    }
}

/// Numbers and failures gathered from several threads.
private final class SavedNumbers: @unchecked Sendable {
    private let lock = NSLock()
    private var numbers: [Int64] = [], errors: [String] = []

    func append(_ more: [Int64]) { lock.withLock { numbers += more } }
    func fail(_ message: String) { lock.withLock { errors.append(message) } }
    var all: [Int64] { lock.withLock { numbers } }
    var failures: [String] { lock.withLock { errors } }
}
