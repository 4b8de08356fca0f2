import Foundation
import Testing
@testable import GraphCore

/// Deleting applies the delete rules at once (cascade, nullify, noAction) or at save (deny).
@Suite struct DeleteRuleTests {
    /// Library → shelves (cascade) → books (cascade) → notes (nullify); Book.tags with noAction.
    static func libraryModel() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Library", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("shelves", destination: "Shelf", inverse: "library", toMany: true, deleteRule: .cascade),
            ]),
            EntityDescription("Shelf", attributes: [AttributeDescription("label", .string)], relationships: [
                RelationshipDescription("library", destination: "Library", inverse: "shelves"),
                RelationshipDescription("books", destination: "Book", inverse: "shelf", toMany: true, ordered: true,
                                        deleteRule: .cascade),
            ]),
            EntityDescription("Book", attributes: [AttributeDescription("title", .string)], relationships: [
                RelationshipDescription("shelf", destination: "Shelf", inverse: "books"),
                RelationshipDescription("notes", destination: "Note", inverse: "book", toMany: true),
                RelationshipDescription("tags", destination: "Tag", inverse: "books", toMany: true, deleteRule: .noAction),
            ]),
            EntityDescription("Note", attributes: [AttributeDescription("text", .string)], relationships: [
                RelationshipDescription("book", destination: "Book", inverse: "notes"),
            ]),
            EntityDescription("Tag", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("books", destination: "Book", inverse: "tags", toMany: true),
            ]),
        ])
    }

    /// Twins: a one-to-one relationship that cascades both ways.
    static func twinModel() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Twin", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("sibling", destination: "Twin", inverse: "sibling", deleteRule: .cascade),
            ]),
        ])
    }

    private func count(_ entity: String, in context: ObjectContext) throws -> Int {
        try context.count(for: FetchRequest(entityName: entity))
    }

    // MARK: - Cascade

    @Test func deletingAnAlbumDeletesItsSongs() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        let songs = try ["a", "b"].map { try context.insert("Song", values: ["title": .string($0)]) }
        let single = try context.insert("Song", values: ["title": "single"])
        try album.setObjects(songs, forKey: "songs")
        try context.save()

        try context.delete(album)
        #expect(album.isDeleted)
        #expect(songs.allSatisfy { $0.isDeleted })
        #expect(!single.isDeleted)
        #expect(Set(context.deletedObjects) == Set([album] + songs))
        #expect(try count("Song", in: context) == 1)
        try context.save()

        let reader = container.newContext()
        #expect(try count("Song", in: reader) == 1)
        #expect(try count("Album", in: reader) == 0)
    }

    @Test func aCascadeFollowsAChainOfRelationships() throws {
        let container = try PersistentContainer.inMemory(model: Self.libraryModel())
        let context = container.viewContext
        let library = try context.insert("Library", values: ["name": "City"])
        var books: [ManagedObject] = []
        for label in ["A", "B"] {
            let shelf = try context.insert("Shelf", values: ["label": .string(label)])
            try shelf.setObject(library, forKey: "library")
            for n in 1...3 {
                let book = try context.insert("Book", values: ["title": .string("\(label)\(n)")])
                try shelf.add(book, toKey: "books")
                books.append(book)
            }
        }
        let note = try context.insert("Note", values: ["text": "dog-eared"])
        try note.setObject(books[0], forKey: "book")
        try context.save()

        try context.delete(library)
        #expect(context.deletedObjects.count == 1 + 2 + 6)
        // The cascade stops at a nullify rule: the note stays, without its book.
        #expect(!note.isDeleted)
        #expect(try note.object(forKey: "book") == nil)
        #expect(context.updatedObjects == [note])
        try context.save()

        let reader = container.newContext()
        #expect(try count("Library", in: reader) == 0)
        #expect(try count("Shelf", in: reader) == 0)
        #expect(try count("Book", in: reader) == 0)
        #expect(try count("Note", in: reader) == 1)
    }

    @Test func aCascadeOfUnsavedObjectsMakesThemAllVanish() throws {
        let container = try PersistentContainer.inMemory(model: Self.libraryModel())
        let context = container.viewContext
        let library = try context.insert("Library", values: ["name": "City"])
        let shelf = try context.insert("Shelf", values: ["label": "A"])
        let book = try context.insert("Book", values: ["title": "A1"])
        try shelf.setObject(library, forKey: "library")
        try book.setObject(shelf, forKey: "shelf")
        try context.delete(library)
        #expect(context.insertedObjects.isEmpty)
        #expect(context.deletedObjects.isEmpty)
        try context.save()
        #expect(try count("Book", in: container.newContext()) == 0)
    }

    @Test func aCascadeBothWaysStopsAtObjectsAlreadyDeleted() throws {
        let container = try PersistentContainer.inMemory(model: Self.twinModel())
        let context = container.viewContext
        let castor = try context.insert("Twin", values: ["name": "Castor"])
        let pollux = try context.insert("Twin", values: ["name": "Pollux"])
        try castor.setObject(pollux, forKey: "sibling")
        #expect(try pollux.object(forKey: "sibling") === castor)
        try context.save()
        try context.delete(pollux)
        #expect(castor.isDeleted && pollux.isDeleted)
        try context.save()
        #expect(try count("Twin", in: container.newContext()) == 0)
    }

    @Test func deletingAFaultLoadsItToApplyTheRules() throws {
        let container = try MusicModel.container()
        let writer = container.viewContext
        let album = try writer.insert("Album", values: ["title": "Kind of Blue"])
        let song = try writer.insert("Song", values: ["title": "So What"])
        try song.setObject(album, forKey: "album")
        try writer.save()

        let context = container.newContext()
        let fault = context.object(with: album.objectID)
        #expect(fault.isFault)
        try context.delete(fault)
        #expect(context.deletedObjects.count == 2)
        try context.save()
        #expect(try count("Song", in: container.newContext()) == 0)
    }

    // MARK: - Nullify

    @Test func deletingASongRemovesItFromItsAlbumAndComposers() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        let composer = try context.insert("Composer", values: ["name": "Davis"])
        let song = try context.insert("Song", values: ["title": "So What"])
        let other = try context.insert("Song", values: ["title": "Blue in Green"])
        try album.setObjects([song, other], forKey: "songs")
        try composer.setObjects([song, other], forKey: "songs")
        try context.save()

        try context.delete(song)
        #expect(try album.objects(forKey: "songs") == [other])
        #expect(try composer.objects(forKey: "songs") == [other])
        #expect(Set(context.updatedObjects) == [album, composer])
        #expect(context.deletedObjects == [song])
        try context.save()

        let reader = container.newContext()
        let readAlbum = try reader.existingObject(with: album.objectID)
        #expect(try readAlbum.objects(forKey: "songs").map { try $0.get("title") as String } == ["Blue in Green"])
    }

    @Test func deletingAnAlbumRemovesItFromItsArtist() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let artist = try context.insert("Artist", values: ["name": "Miles Davis"])
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        let other = try context.insert("Album", values: ["title": "Sketches of Spain"])
        try artist.setObjects([album, other], forKey: "albums")
        try context.save()
        try context.delete(album)
        #expect(try artist.objects(forKey: "albums") == [other])
        try context.save()
    }

    // MARK: - Deny

    @Test func deletingAnArtistWithAlbumsIsDeniedAtSave() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let artist = try context.insert("Artist", values: ["name": "Miles Davis"])
        let albums = try ["Kind of Blue", "Sketches of Spain"].map {
            try context.insert("Album", values: ["title": .string($0)])
        }
        try artist.setObjects(albums, forKey: "albums")
        try context.save()

        try context.delete(artist)
        #expect(artist.isDeleted)
        // Deny changes nothing until the save.
        #expect(try albums[0].object(forKey: "artist") === artist)
        let expected = ValidationFailure(objectID: artist.objectID, key: "albums",
                                         reason: .deleteDenied(blocking: albums.map(\.objectID)))
        #expect(throws: GraphError.validation([expected])) { try context.save() }
        #expect(expected.description.contains("Artist.albums"))

        // Nothing was saved: the artist is still in the store.
        #expect(try count("Artist", in: container.newContext()) == 1)
        #expect(context.hasChanges)
    }

    @Test func deletingAnArtistIsAllowedOnceItsAlbumsAreDeletedToo() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let artist = try context.insert("Artist", values: ["name": "Miles Davis"])
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        let song = try context.insert("Song", values: ["title": "So What"])
        try album.setObject(artist, forKey: "artist")
        try song.setObject(album, forKey: "album")
        try context.save()

        try context.delete(artist)
        try context.delete(album)
        try context.save()
        let reader = container.newContext()
        #expect(try count("Artist", in: reader) == 0)
        #expect(try count("Album", in: reader) == 0)
        #expect(try count("Song", in: reader) == 0)
    }

    @Test func deletingAnArtistWithoutAlbumsIsAllowed() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let artist = try context.insert("Artist", values: ["name": "Nobody"])
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        try album.setObject(artist, forKey: "artist")
        try context.save()
        try album.setObject(nil, forKey: "artist")
        try context.delete(artist)
        try context.save()
        #expect(try count("Artist", in: container.newContext()) == 0)
    }

    @Test func deletingAnUnsavedArtistWithAlbumsIsDeniedAndLeavesNoDanglingReference() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let artist = try context.insert("Artist", values: ["name": "Miles Davis"])
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        try album.setObject(artist, forKey: "artist")

        let expected = ValidationFailure(objectID: artist.objectID, key: "albums",
                                         reason: .deleteDenied(blocking: [album.objectID]))
        #expect(throws: GraphError.validation([expected])) { try context.delete(artist) }
        #expect(!artist.isDeleted)
        #expect(try album.object(forKey: "artist") === artist)
        try context.save()

        // The album saved with its artist, not with a reference to an object never saved.
        let reader = container.newContext()
        let readAlbum = try reader.existingObject(with: album.objectID)
        #expect(try readAlbum.object(forKey: "artist")?.get("name") as String? == "Miles Davis")
    }

    @Test func aCascadeReachingAnUnsavedObjectWhoseDenyRuleBlocksDeletesNothing() throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Owner", relationships: [
                RelationshipDescription("vault", destination: "Vault", inverse: "owner", deleteRule: .cascade),
            ]),
            EntityDescription("Vault", relationships: [
                RelationshipDescription("owner", destination: "Owner", inverse: "vault"),
                RelationshipDescription("items", destination: "Item", inverse: "vault", toMany: true, deleteRule: .deny),
            ]),
            EntityDescription("Item", relationships: [
                RelationshipDescription("vault", destination: "Vault", inverse: "items"),
            ]),
        ])
        let container = try PersistentContainer.inMemory(model: model)
        let context = container.viewContext
        let owner = try context.insert("Owner")
        try context.save()
        let vault = try context.insert("Vault")
        let item = try context.insert("Item")
        try vault.setObject(owner, forKey: "owner")
        try item.setObject(vault, forKey: "vault")

        let expected = ValidationFailure(objectID: vault.objectID, key: "items", reason: .deleteDenied(blocking: [item.objectID]))
        #expect(throws: GraphError.validation([expected])) { try context.delete(owner) }
        #expect(!owner.isDeleted && !vault.isDeleted)
        #expect(try owner.object(forKey: "vault") === vault)
        #expect(context.deletedObjects.isEmpty)

        // With the item gone first, the cascade goes through.
        try context.delete(item)
        try context.delete(owner)
        #expect(owner.isDeleted && vault.isDeleted)
        try context.save()
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Owner")) == 0)
    }

    @Test func anUnsavedArtistCanBeDeletedTogetherWithItsAlbumsByDeletingTheAlbumsFirst() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let artist = try context.insert("Artist", values: ["name": "Miles Davis"])
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        try album.setObject(artist, forKey: "artist")
        try context.delete(album)
        try context.delete(artist)
        #expect(context.insertedObjects.isEmpty)
        try context.save()
        #expect(try count("Album", in: container.newContext()) == 0)
    }

    // MARK: - No action

    @Test func noActionLeavesTheOtherSidePointingAtTheDeletedObject() throws {
        let container = try PersistentContainer.inMemory(model: Self.libraryModel())
        let context = container.viewContext
        let book = try context.insert("Book", values: ["title": "Dune"])
        let tag = try context.insert("Tag", values: ["name": "sf"])
        try book.add(tag, toKey: "tags")
        try context.save()

        try context.delete(book)
        #expect(!tag.isDeleted)
        #expect(!tag.hasChanges)
        #expect(try tag["books"] == .objects([book.objectID]))
        try context.save()
        // The reference is left for the application to deal with.
        #expect(try tag["books"] == .objects([book.objectID]))
        #expect(throws: GraphError.objectNotFound(book.objectID)) { _ = try tag.objects(forKey: "books") }
    }

    // MARK: - Deleting inserted objects

    @Test func deletingAnInsertedObjectMakesItVanish() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        try context.save()
        let song = try context.insert("Song", values: ["title": "So What"])
        try song.setObject(album, forKey: "album")
        try context.delete(song)

        #expect(song.isDeleted)
        #expect(context.insertedObjects.isEmpty)
        #expect(context.deletedObjects.isEmpty)
        #expect(try album.objects(forKey: "songs").isEmpty)
        #expect(try context.fetch(FetchRequest(entityName: "Song")).isEmpty)
        try context.save()
        #expect(song.context == nil)
        #expect(try count("Song", in: container.newContext()) == 0)
    }

    @Test func aContextWhoseOnlyChangeWasAnInsertThenDeleteHasNoChanges() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song", values: ["title": "So What"])
        try context.delete(song)
        #expect(!context.hasChanges)
    }

    // MARK: - Misuse

    @Test func deletingTwiceIsHarmlessAndAForeignObjectIsRefused() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song", values: ["title": "So What"])
        try context.save()
        try context.delete(song)
        try context.delete(song)
        #expect(context.deletedObjects == [song])

        let other = container.newContext()
        let foreign = try other.insert("Song", values: ["title": "x"])
        #expect(throws: GraphError.self) { try context.delete(foreign) }
        #expect(!foreign.isDeleted)
    }
}
