import Foundation
import GraphCore
import Testing

/// Delete rules: cascade deletes the related objects, nullify takes the deleted object out of
/// the inverse, deny refuses the save (and nothing of it is saved).
@Suite struct DeleteRuleBehaviourTests {
    /// An artist with one album of two songs, each song tagged "modal"; saved.
    private struct Graph {
        let artist: ManagedObject
        let album: ManagedObject
        let songs: [ManagedObject]
        let tag: ManagedObject

        init(in context: ObjectContext) throws {
            artist = try context.insert("Artist", values: ["name": "Miles Davis"])
            album = try context.insert("Album", values: ["title": "Kind of Blue"])
            songs = try ["So What", "All Blues"].map { try context.insert("Song", values: ["title": .string($0)]) }
            tag = try context.insert("Tag", values: ["name": "modal"])
            try album.setObject(artist, forKey: "artist")
            try album.setObjects(songs, forKey: "songs")
            try tag.setObjects(songs, forKey: "songs")
            try context.save()
        }
    }

    @Test(arguments: StoreKind.allCases)
    func cascadeDeletesTheRelatedObjectsAndNullifiesTheirOtherSides(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        let graph = try Graph(in: store.context)

        try store.context.delete(graph.album)
        #expect(graph.songs.allSatisfy { $0.isDeleted }, "the cascade applies at once")
        #expect(try graph.tag.ids("songs") == [])
        try store.context.save()

        let other = try store.secondContext()
        #expect(try other.count("Album") == 0)
        #expect(try other.count("Song") == 0)
        for song in graph.songs {
            #expect(throws: GraphError.objectNotFound(song.objectID)) { try other.existingObject(with: song.objectID) }
        }
        let tag = try other.existingObject(with: graph.tag.objectID)
        #expect(try tag.ids("songs") == [])
        #expect(tag.version == 2)
        let artist = try other.existingObject(with: graph.artist.objectID)
        #expect(try artist.ids("albums") == [])
        #expect(artist.version == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func nullifyTakesTheDeletedObjectOutOfItsInverses(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        let graph = try Graph(in: store.context)
        let (gone, kept) = (graph.songs[0], graph.songs[1])

        try store.context.delete(gone)
        #expect(try graph.album.objects(forKey: "songs") == [kept])
        try store.context.save()

        let other = try store.secondContext()
        let album = try other.existingObject(with: graph.album.objectID)
        #expect(try album.ids("songs") == [kept.objectID])
        #expect(try other.existingObject(with: graph.tag.objectID).ids("songs") == [kept.objectID])
        #expect(try other.existingObject(with: kept.objectID).id("album") == graph.album.objectID)
        #expect(try other.count("Song") == 1)
        #expect(try other.count("Album") == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func denyRefusesTheSaveWithAValidationErrorAndSavesNothing(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        let graph = try Graph(in: store.context)

        try store.context.delete(graph.artist)
        let extra = try store.context.insert("Tag", values: ["name": "unsaved"])
        try graph.songs[0].set("plays", Int64(99))
        let error = #expect(throws: GraphError.self) { try store.context.save() }
        #expect(validationFailures(of: error) == [
            ValidationFailure(objectID: graph.artist.objectID, key: "albums", reason: .deleteDenied(blocking: [graph.album.objectID])),
        ])
        #expect(graph.artist.isDeleted && extra.isInserted, "the changes stay, unsaved")

        let other = try store.secondContext()
        #expect(try other.existingObject(with: graph.artist.objectID).ids("albums") == [graph.album.objectID])
        #expect(try other.existingObject(with: graph.album.objectID).id("artist") == graph.artist.objectID)
        #expect(try other.count("Tag") == 1)
        #expect(try other.existingObject(with: graph.songs[0].objectID).get("plays") as Int64 == 0)
        #expect(try other.existingObject(with: graph.artist.objectID).version == 1)

        // Deleting the album too lifts the denial.
        try store.context.delete(graph.album)
        try store.context.save()
        let fresh = store.freshContext()
        #expect(try fresh.count("Artist") == 0)
        #expect(try fresh.count("Album") == 0)
        #expect(try fresh.count("Song") == 0)
        #expect(try strings("name", of: fresh.all("Tag", sortedBy: "name")) == ["modal", "unsaved"])
    }
}
