import Foundation
import PostgresTestSupport
import GraphCore
import PostgresStore
import Testing

/// Each history row records what its commit replaced (the objects' previous values), so that a
/// server whose cache does not hold an object judges another server's commit on it as exactly
/// as one that does: the object before the commit is the object after it with those values put back.
@Suite(.enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct PreviousValuesTests {
    /// The metadata of a save by `author` of `objects`, with the previous values of `before`.
    private func metadata(_ objects: [ManagedObject], before: [ObjectSnapshot]) -> CommitMetadata {
        CommitMetadata(parts: [CommitPart(author: "ann", objects: objects.map(\.objectID))],
                       previousSnapshots: Dictionary(uniqueKeysWithValues: before.map { ($0.objectID, $0) }))
    }

    private func snapshot(_ object: ManagedObject, _ fixture: PostgresFixture) throws -> ObjectSnapshot {
        guard let found = try fixture.store.snapshot(for: object.objectID) else { throw PostgresStoreError.damagedSchema("no object") }
        return found
    }

    @Test func theObjectsBeforeEachCommitAreRebuiltFromTheHistoryAndFromItsNotification() throws {
        let fixture = try PostgresFixture()
        let table = try fixture.store.openCommitHistory(), listening = try fixture.store.openCommitHistory()
        defer {
            table.close()
            listening.close()
        }
        let told = DispatchSemaphore(value: 0)
        try listening.listenForCommits { _ in told.signal() }
        let context = fixture.context
        let album = try context.insert("Album", values: ["title": "Blue"])
        let river = try context.insert("Song", values: ["title": "River", "plays": 3])
        try river.setObject(album, forKey: "album")
        try context.save(metadata: metadata([album, river], before: []))
        let albumOne = try snapshot(album, fixture), riverOne = try snapshot(river, fixture)

        // Attributes, an ordered and an unordered to-many relationship changed; objects inserted.
        let song = try context.insert("Song", values: ["title": "Case"])
        try song.setObject(album, forKey: "album")
        let tag = try context.insert("Tag", values: ["name": "live"])
        try tag.setObjects([river], forKey: "songs")
        try river.set("title", "River (live)")
        try river.set("plays", Int64(4))
        try context.save(metadata: metadata([river, album, song, tag], before: [riverOne, albumOne]))
        let albumTwo = try snapshot(album, fixture), riverTwo = try snapshot(river, fixture)

        // A deletion: every value recorded; its album loses it.
        try context.delete(river)
        try context.save(metadata: metadata([river, album], before: [riverTwo, albumTwo]))
        let albumThree = try snapshot(album, fixture)
        for _ in 0..<3 { #expect(told.wait(timeout: .now() + 20) == .success) }

        let commits = try table.commits(after: 0, through: nil, limit: 10)
        #expect(try listening.commits(after: 0, through: nil, limit: 10) == commits)
        #expect(commits.count == 3)
        guard commits.count == 3 else { return }
        #expect(commits[0].objects.allSatisfy { $0.previous == nil })  // inserted: nothing before
        func previous(_ commit: StoreCommit, _ object: ManagedObject) -> PreviousValues? {
            guard case .int(let reference) = object.objectID.referenceObject else { return nil }
            return commit.objects.first { $0.reference == reference }?.previous
        }
        let titles = try #require(previous(commits[1], river))
        #expect(titles.version == riverOne.version)
        #expect(titles.values.count == 2 && titles.targets.count == 1)  // only what the commit changed
        #expect(titles.snapshot(of: river.objectID, after: riverTwo) == riverOne)
        #expect(try #require(previous(commits[1], album)).snapshot(of: album.objectID, after: albumTwo) == albumOne)
        #expect(previous(commits[1], song) == nil)
        #expect(try #require(previous(commits[2], river)).snapshot(of: river.objectID, after: nil) == riverTwo)
        #expect(try #require(previous(commits[2], album)).snapshot(of: album.objectID, after: albumThree) == albumTwo)
    }

    @Test func valuesOfEveryTypeAreRecordedAsTheyWere() throws {
        let fixture = try PostgresFixture(), history = try fixture.store.openCommitHistory()
        defer { history.close() }
        let context = fixture.context
        let specimen = try context.insert("Specimen", values: [
            "label": "all", "text": "a \"quoted\" line\nand é", "small": .int(-7), "medium": .int(70_000),
            "large": .int(Int64.min), "ratio": .double(0.1), "weight": .double(-2.5), "price": .decimal(Decimal(string: "12.345") ?? 0),
            "flag": .bool(true), "moment": .date(Date(timeIntervalSince1970: 1_700_000_000.125)), "blob": .binary(Data([0, 1, 255])),
            "uid": .uuid(UUID()), "link": .uri(URL(string: "https://example.com/a?b=c") ?? URL(fileURLWithPath: "/")),
        ])
        try context.save()
        let before = try snapshot(specimen, fixture)
        for key in ["text", "small", "medium", "large", "ratio", "weight", "price", "flag", "moment", "blob", "uid", "link"] {
            try specimen.setValue(.null, forKey: key)
        }
        try context.save(metadata: metadata([specimen], before: [before]))
        let after = try snapshot(specimen, fixture)
        let recorded = try #require(try history.commits(after: 0, through: nil, limit: 1).first?.objects.first?.previous)
        #expect(recorded.snapshot(of: specimen.objectID, after: after) == before)
    }

    @Test func aDatabaseMadeBeforePreviousValuesGetsTheColumnAndItsOldRowsReadWithoutThem() throws {
        let fixture = try PostgresFixture()
        let artist = try fixture.context.insert("Artist", values: ["name": "Nina"])
        try fixture.context.save(metadata: metadata([artist], before: []))
        // As a database of the version before left it: no column, no function that fills it.
        let database = fixture.url.lastPathComponent, cluster = try PostgresCluster.shared()
        _ = try cluster.psql(#"ALTER TABLE "_graph_history" DROP COLUMN previous"#, database: database)
        _ = try cluster.psql(#"DROP FUNCTION "_graph_history_write_2""#, database: database)
        // A store opened on it adds both; the old row reads without previous values.
        let reopened = try fixture.secondCoordinator()
        let history = try reopened.store.openCommitHistory()
        defer { history.close() }
        let read = try #require(try reopened.store.snapshot(for: artist.objectID))
        let again = try reopened.context.existingObject(with: artist.objectID)
        try again.set("name", "Nina S.")
        try reopened.context.save(metadata: metadata([again], before: [read]))
        let commits = try history.commits(after: 0, through: nil, limit: 10)
        #expect(commits.count == 2)
        guard commits.count == 2 else { return }
        #expect(commits[0].objects.first?.previous == nil)
        let name = try #require(reopened.model.entity(named: "Artist")?.index(ofProperty: "name"))
        #expect(commits[1].objects.first?.previous?.values[name] == .string("Nina"))
    }

    @Test func nothingIsRecordedWithoutTheObjectAsItWasReadOrForAnotherVersion() throws {
        let fixture = try PostgresFixture(), history = try fixture.store.openCommitHistory()
        defer { history.close() }
        let context = fixture.context
        let artist = try context.insert("Artist", values: ["name": "Nina"])
        try context.save()
        let read = try snapshot(artist, fixture)
        try artist.set("name", "Nina S.")
        try context.save(metadata: metadata([artist], before: []))  // no previous values given
        try artist.set("name", "Nina Simone")
        try context.save(metadata: metadata([artist], before: [read]))  // at version 1; the save read version 2
        let commits = try history.commits(after: 0, through: nil, limit: 10)
        #expect(commits.count == 2)
        #expect(commits.allSatisfy { $0.objects.count == 1 && $0.objects[0].previous == nil })
    }
}
