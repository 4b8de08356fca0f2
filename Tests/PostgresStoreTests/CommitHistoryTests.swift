import Foundation
import PostgresTestSupport
import GraphCore
import PostgresStore
import Testing

/// The history table a server writes with each save: numbered in commit order without gaps,
/// read back with what each save changed, and announced to listeners.
@Suite(.enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct CommitHistoryTests {
    private func part(_ objects: [ManagedObject], _ kind: HistoryObject.Kind, author: String?) -> HistoryPart {
        HistoryPart(author: author, objects: objects.compactMap { object in
            guard case .int(let reference) = object.objectID.referenceObject else { return nil }
            return HistoryObject(entity: object.entity.name, reference: reference, kind: kind)
        })
    }

    @Test func savesWithPartsAreNumberedInCommitOrderAndReadBackWithWhatTheyChanged() throws {
        let fixture = try PostgresFixture(), other = try fixture.secondCoordinator()
        let history = try PostgresHistory(url: fixture.url)
        defer { history.close() }
        #expect(try history.latestSequence() == 0)

        let first = try fixture.context.insert("Artist", values: ["name": "Nina"])
        try fixture.context.save()  // without parts: no history row
        #expect(fixture.store.lastCommitSequences.isEmpty)
        try first.set("name", "Nina S.")
        fixture.store.nextCommitParts = [part([first], .updated, author: "ann")]
        try fixture.context.save()
        #expect(fixture.store.lastCommitSequences == [1])

        // The other coordinator's save follows, and a save without parts writes no row.
        let reader = ObjectContext(coordinator: other.coordinator)
        let read = try reader.existingObject(with: first.objectID)
        try read.set("name", "Nina Simone")
        other.store.nextCommitParts = [part([read], .updated, author: nil), part([], .updated, author: "bob")]
        try reader.save()
        #expect(other.store.lastCommitSequences == [2, 3])

        let commits = try history.commits(after: 0)
        #expect(commits.map(\.sequence) == [1, 2, 3])
        #expect(commits.map(\.author) == ["ann", nil, "bob"])
        guard case .int(let reference) = first.objectID.referenceObject else { throw PostgresStoreError.damagedSchema("no reference") }
        #expect(commits[0].objects == [HistoryObject(entity: "Artist", reference: reference, kind: .updated)])
        #expect(commits[1].objects == [HistoryObject(entity: "Artist", reference: reference, kind: .updated)])
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
        fixture.store.nextCommitParts = [part([artist], .updated, author: nil)]
        try fixture.context.save()

        try stale.set("name", "second")
        other.store.nextCommitParts = [part([stale], .updated, author: nil)]
        #expect(throws: GraphError.self) { try staleContext.save() }

        // A version named by a request is checked even when the save does not write the row.
        other.store.nextCheckedVersions = [artist.objectID: 1]
        let fresh = ObjectContext(coordinator: other.coordinator)
        _ = try fresh.insert("Artist", values: ["name": "another"])
        other.store.nextCommitParts = [HistoryPart(author: nil, objects: [])]
        #expect(throws: GraphError.self) { try fresh.save() }

        fixture.context.reset()
        let again = try fixture.context.existingObject(with: artist.objectID)
        try again.set("name", "third")
        fixture.store.nextCommitParts = [part([again], .updated, author: nil)]
        try fixture.context.save()
        #expect(try history.commits(after: 0).map(\.sequence) == [1, 2])
    }

    @Test func aListenerIsToldOfEachCommitWithHistory() throws {
        let fixture = try PostgresFixture()
        let history = try PostgresHistory(url: fixture.url)
        defer { history.close() }
        let told = DispatchSemaphore(value: 0)
        try history.listenForCommits { told.signal() }
        #expect(history.isListening)
        let artist = try fixture.context.insert("Artist", values: ["name": "Nina"])
        try fixture.context.save()
        try artist.set("name", "Nina S.")
        fixture.store.nextCommitParts = [part([artist], .updated, author: nil)]
        try fixture.context.save()
        #expect(told.wait(timeout: .now() + 20) == .success)
    }
}
