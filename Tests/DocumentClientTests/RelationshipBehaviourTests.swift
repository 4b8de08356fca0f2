import Foundation
import GraphCore
import Testing

/// To-one, to-many, ordered and many-to-many relationships: the inverse follows at once in the
/// context, both sides are saved, and another context reads them back the same.
@Suite struct RelationshipBehaviourTests {
    @Test(arguments: StoreKind.allCases)
    func settingAToOneAddsToTheInverseAndBothSidesAreSaved(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        let album = try store.context.insert("Album", values: ["title": "Kind of Blue"])
        let first = try store.context.insert("Song", values: ["title": "So What"])
        let second = try store.context.insert("Song", values: ["title": "Freddie Freeloader"])

        try first.setObject(album, forKey: "album")
        #expect(try album.objects(forKey: "songs") == [first])
        try album.add(second, toKey: "songs")
        #expect(try second.object(forKey: "album") === album)
        try store.context.save()

        let other = try store.secondContext()
        let seenAlbum = try other.existingObject(with: album.objectID)
        #expect(try seenAlbum.ids("songs") == [first.objectID, second.objectID])
        #expect(try other.existingObject(with: first.objectID).id("album") == album.objectID)
        #expect(try other.existingObject(with: second.objectID).id("album") == album.objectID)
    }

    @Test(arguments: StoreKind.allCases)
    func anOrderedToManyKeepsItsOrderThroughSavesAndMoves(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        let album = try store.context.insert("Album", values: ["title": "Kind of Blue"])
        // Inserted in alphabetical order, related in another: the order kept is the relationship's.
        let songs = try ["A", "B", "C", "D"].map { try store.context.insert("Song", values: ["title": .string($0)]) }
        try album.setObjects([songs[2], songs[0], songs[3], songs[1]], forKey: "songs")
        try store.context.save()

        let other = try store.secondContext()
        let seen = try other.existingObject(with: album.objectID)
        #expect(try strings("title", of: seen.objects(forKey: "songs")) == ["C", "A", "D", "B"])

        // Move "B" to the front and drop "D".
        try album.remove(songs[1], fromKey: "songs")
        try album.add(songs[1], toKey: "songs", at: 0)
        try album.remove(songs[3], fromKey: "songs")
        try store.context.save()
        #expect(try songs[3].object(forKey: "album") == nil)

        try other.refresh(seen, mergeChanges: false)
        #expect(try strings("title", of: seen.objects(forKey: "songs")) == ["B", "C", "A"])
        let fresh = store.freshContext()
        let dropped = try fresh.existingObject(with: songs[3].objectID)
        #expect(try dropped.id("album") == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func movingAnObjectToAnotherToOneTakesItOutOfTheOldInverse(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        let blue = try store.context.insert("Album", values: ["title": "Kind of Blue"])
        let spain = try store.context.insert("Album", values: ["title": "Sketches of Spain"])
        let song = try store.context.insert("Song", values: ["title": "Solea"])
        let stays = try store.context.insert("Song", values: ["title": "So What"])
        try blue.setObjects([song, stays], forKey: "songs")
        try store.context.save()

        try song.setObject(spain, forKey: "album")
        #expect(try blue.objects(forKey: "songs") == [stays])
        #expect(try spain.objects(forKey: "songs") == [song])
        try store.context.save()

        let fresh = store.freshContext()
        #expect(try fresh.existingObject(with: blue.objectID).ids("songs") == [stays.objectID])
        #expect(try fresh.existingObject(with: spain.objectID).ids("songs") == [song.objectID])
        #expect(try fresh.existingObject(with: song.objectID).id("album") == spain.objectID)
        // A change made by an inverse is a change: both albums' versions grew.
        #expect(try fresh.existingObject(with: blue.objectID).version == 2)
        #expect(try fresh.existingObject(with: spain.objectID).version == 2)
        #expect(try fresh.existingObject(with: stays.objectID).version == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func aManyToManyKeepsBothSidesInStep(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        let blues = try store.context.insert("Song", values: ["title": "All Blues"])
        let green = try store.context.insert("Song", values: ["title": "Blue in Green"])
        let modal = try store.context.insert("Tag", values: ["name": "modal"])
        let ballad = try store.context.insert("Tag", values: ["name": "ballad"])

        try blues.setObjects([modal], forKey: "tags")
        try green.setObjects([modal, ballad], forKey: "tags")
        #expect(try Set(modal.ids("songs")) == [blues.objectID, green.objectID])
        #expect(try ballad.ids("songs") == [green.objectID])
        try store.context.save()

        let other = try store.secondContext()
        #expect(try Set(other.existingObject(with: modal.objectID).ids("songs")) == [blues.objectID, green.objectID])
        #expect(try other.existingObject(with: ballad.objectID).ids("songs") == [green.objectID])
        #expect(try Set(other.existingObject(with: green.objectID).ids("tags")) == [modal.objectID, ballad.objectID])

        // Removing from one side removes from the other.
        try modal.remove(green, fromKey: "songs")
        #expect(try green.ids("tags") == [ballad.objectID])
        try store.context.save()

        let fresh = store.freshContext()
        #expect(try fresh.existingObject(with: modal.objectID).ids("songs") == [blues.objectID])
        #expect(try fresh.existingObject(with: green.objectID).ids("tags") == [ballad.objectID])
        #expect(try fresh.existingObject(with: blues.objectID).ids("tags") == [modal.objectID])
    }

    @Test(arguments: StoreKind.allCases)
    func relationshipsBetweenObjectsOfEarlierSavesAreSaved(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        let album = try store.context.insert("Album", values: ["title": "Kind of Blue"])
        try store.context.save()

        // A second context relates a new song to the saved album, which it only knows by ID.
        let other = try store.secondContext()
        let song = try other.insert("Song", values: ["title": "So What"])
        try song.setObject(other.existingObject(with: album.objectID), forKey: "album")
        try other.save()

        try store.context.refresh(album, mergeChanges: false)
        #expect(try album.ids("songs") == [song.objectID])
        #expect(album.version == 2)
    }
}
