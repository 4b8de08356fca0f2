import Foundation
import GraphCore
@testable import PostgresStore
import PostgresTestSupport
import Testing

/// What a save of thousands of inserts relies on, made cheap for the server: the references
/// come back from the sequence in one row, and the history row of each part is made with one
/// dictionary access per object.
@Suite(.enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct BulkWriteTests {
    @Test func fiveThousandNewReferencesComeBackDistinctInTheSequencesOrderAndTheNextFollowsThem() throws {
        let fixture = try PostgresFixture()
        let songs = try (0..<5_000).map { try fixture.context.insert("Song", values: ["title": .string("song \($0)")]) }
        let snapshots = songs.map { ObjectSnapshot(objectID: $0.objectID, version: 0, values: []) }
        let ids = try fixture.store.obtainPermanentIDs(for: snapshots)
        let references = try ids.map { try fixture.store.reference(of: $0) }
        #expect(ids.count == 5_000)
        #expect(ids.allSatisfy { $0.entityName == "Song" && !$0.isTemporary })
        #expect(Set(references).count == 5_000)
        // One session on a sequence nobody else uses: the numbers follow each other.
        #expect(references == Array(references[0]...(references[0] + 4_999)))
        let next = try fixture.store.obtainPermanentIDs(for: [snapshots[0]]).map { try fixture.store.reference(of: $0) }
        #expect(next == [references[0] + 5_000])
        #expect(try fixture.store.obtainPermanentIDs(for: []).isEmpty)
    }

    @Test func aSaveOfFiveThousandInsertsWritesOneHistoryRowNamingEachOnceAsInserted() throws {
        let fixture = try PostgresFixture()
        let history = try PostgresHistory(url: fixture.url)
        defer { history.close() }
        // Inserted through a child context, as a server does: its save gives them permanent IDs,
        // and the commit's part names those.
        let child = fixture.context.newChildContext()
        let songs = try (0..<5_000).map { try child.insert("Song", values: ["title": .string("song \($0)"), "plays": .int(Int64($0))]) }
        try child.save()
        #expect(songs.allSatisfy { !$0.objectID.isTemporary })
        let result = try fixture.context.save(metadata: CommitMetadata(parts: [CommitPart(author: "loader", objects: songs.map(\.objectID))]))
        #expect(result.sequences == [1])
        let commits = try history.commits(after: 0)
        #expect(commits.count == 1)
        #expect(commits.first?.author == "loader")
        let expected = try songs.map { CommittedObject(entity: "Song", reference: try fixture.store.reference(of: $0.objectID), kind: .inserted) }
        #expect(commits.first?.objects == expected)
        #expect(try fixture.secondCoordinator().context.count(for: FetchRequest(entityName: "Song")) == 5_000)
    }
}

/// The history rows of a save's parts, made without a database.
struct HistoryRowTests {
    private let model: ObjectModel
    private let song: EntityDescription, tag: EntityDescription

    init() throws {
        model = try TestModel.make()
        guard let song = model.entity(named: "Song"), let tag = model.entity(named: "Tag") else { throw GraphError.store("no Song or Tag") }
        self.song = song
        self.tag = tag
    }

    private func id(_ entity: EntityDescription, _ reference: Int64) -> ObjectID {
        ObjectID(entity: entity, storeIdentifier: "store", reference: .int(reference))
    }

    private func snapshot(_ id: ObjectID) -> ObjectSnapshot {
        ObjectSnapshot(objectID: id, version: 1, values: Array(repeating: .null, count: id.entity.properties.count))
    }

    @Test func eachPartNamesItsObjectsWithWhatHappenedAndTheObjectsNoPartNamesGoToTheLastPart() {
        let inserted = id(song, 1), updated = id(song, 2), deleted = id(tag, 3), unnamed = id(song, 4), onlyNamed = id(tag, 5)
        let request = SaveChangesRequest(
            insertedObjects: [snapshot(inserted), snapshot(unnamed)], updatedObjects: [snapshot(updated)], deletedObjects: [snapshot(deleted)],
            metadata: CommitMetadata(parts: [
                CommitPart(author: "ann", objects: [inserted, updated]),
                // A part may name an object the save does not hold (updated), and one another part named.
                CommitPart(author: nil, objects: [deleted, onlyNamed, inserted]),
            ]))
        let rows = PostgresStore.historyRows(of: request)
        #expect(rows.map(\.author) == ["ann", nil])
        #expect(rows.first?.objects == [CommittedObject(entity: "Song", reference: 1, kind: .inserted),
                                        CommittedObject(entity: "Song", reference: 2, kind: .updated)])
        #expect(rows.last?.objects == [CommittedObject(entity: "Tag", reference: 3, kind: .deleted),
                                       CommittedObject(entity: "Tag", reference: 5, kind: .updated),
                                       CommittedObject(entity: "Song", reference: 1, kind: .inserted),
                                       CommittedObject(entity: "Song", reference: 4, kind: .inserted)])
    }

    @Test func aSaveWithoutPartsHasNoHistoryRow() {
        #expect(PostgresStore.historyRows(of: SaveChangesRequest(insertedObjects: [snapshot(id(song, 7))])).isEmpty)
    }
}
