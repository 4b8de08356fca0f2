import Foundation
import PostgresTestSupport
import GraphCore
import PostgresStore
import ServerTestSupport
import Synchronization
import Testing

/// The PostgreSQL store against a real PostgreSQL cluster: schema, values, relationships,
/// inheritance, optimistic locking across coordinators, delete rules.
@Suite(.enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct PostgresStoreTests {
    @Test func everyAttributeTypeRoundTripsThroughTheDatabase() throws {
        let fixture = try PostgresFixture()
        let uid = UUID()
        let moment = Date(timeIntervalSinceReferenceDate: 123_456.789_012_345)
        let values: [String: Value] = [
            "label": "all", "text": "it's \"quoted\"'); DROP TABLE \"Specimen\"; --", "small": .int(-32768), "medium": .int(2_147_483_647),
            "large": .int(Int64.min), "ratio": .double(-0.1), "weight": .double(Double(Float(1.5))),
            "price": .decimal(Decimal(string: "12345678901234567890.123456789")!), "flag": true, "moment": .date(moment),
            "blob": .binary(Data([0, 1, 2, 255])), "uid": .uuid(uid), "link": .uri(URL(string: "https://example.com/a?b=c")!),
        ]
        let inserted = try fixture.context.insert("Specimen", values: values)
        try fixture.context.save()
        #expect(!inserted.objectID.isTemporary)

        let reader = ObjectContext(coordinator: try fixture.secondCoordinator().coordinator)
        let read = try reader.existingObject(with: inserted.objectID)
        for (key, value) in values { #expect(try read.value(forKey: key) == value, "\(key)") }
        #expect(read.version == 1)
    }

    @Test func insertFetchUpdateAndDeleteWithRelationshipsAndInheritance() throws {
        let fixture = try PostgresFixture()
        let context = fixture.context
        let artist = try context.insert("Artist", values: ["name": "Nina"])
        let album = try context.insert("Album", values: ["title": "Blue"])
        try album.setObject(artist, forKey: "artist")
        let songs = try (1...3).map { try context.insert("Song", values: ["title": .string("Song \($0)"), "plays": .int(Int64($0))]) }
        try album.setObjects([songs[2], songs[0], songs[1]], forKey: "songs")
        let tag = try context.insert("Tag", values: ["name": "jazz"])
        try tag.setObjects([songs[0], songs[2]], forKey: "songs")
        _ = try context.insert("Book", values: ["title": "Dune", "pages": 412])
        _ = try context.insert("Film", values: ["title": "Alien", "minutes": 117])
        try context.save()

        let reader = ObjectContext(coordinator: try fixture.secondCoordinator().coordinator)
        let readAlbum = try reader.existingObject(with: album.objectID)
        #expect(try readAlbum.objects(forKey: "songs").map { try $0.get("title", as: String.self) } == ["Song 3", "Song 1", "Song 2"])
        #expect(try readAlbum.object(forKey: "artist")?.get("name", as: String.self) == "Nina")
        let readArtist = try reader.existingObject(with: artist.objectID)
        #expect(try readArtist.objects(forKey: "albums").map(\.objectID) == [album.objectID])
        let readSong = try reader.existingObject(with: songs[0].objectID)
        #expect(try readSong.objects(forKey: "tags").map(\.objectID) == [tag.objectID])

        // A fetch of the abstract parent returns both sub-entities; of one sub-entity only its own.
        let media = try reader.fetch(FetchRequest(entityName: "Media", sortDescriptors: [SortDescriptor("title")]))
        #expect(media.map(\.entity.name) == ["Film", "Book"])
        #expect(try reader.fetch(FetchRequest(entityName: "Book")).count == 1)

        // Update and delete; the other coordinator sees both.
        try songs[1].set("plays", Int64(10))
        try context.delete(songs[2])
        try context.save()
        let later = ObjectContext(coordinator: try fixture.secondCoordinator().coordinator)
        let fetched = try later.fetch(FetchRequest(entityName: "Song", sortDescriptors: [SortDescriptor("plays", ascending: false)]))
        #expect(try fetched.map { try $0.get("title", as: String.self) } == ["Song 2", "Song 1"])
        #expect(fetched.first?.version == 2)
        #expect(try later.existingObject(with: album.objectID).objects(forKey: "songs").map(\.objectID) == [songs[0].objectID, songs[1].objectID])
        #expect(try later.existingObject(with: tag.objectID).objects(forKey: "songs").map(\.objectID) == [songs[0].objectID])
    }

    @Test func twoCoordinatorsSavingOneObjectGiveOneConflict() throws {
        let first = try PostgresFixture()
        let song = try first.context.insert("Song", values: ["title": "Blue", "plays": 1])
        try first.context.save()
        let second = try first.secondCoordinator()
        let other = try second.context.existingObject(with: song.objectID)

        try song.set("title", "First")
        try first.context.save()
        try other.set("title", "Second")
        let error = #expect(throws: GraphError.self) { try second.context.save() }
        guard case .conflict(let conflicts)? = error else {
            Issue.record("expected a conflict, got \(String(describing: error))")
            return
        }
        #expect(conflicts == [Conflict(objectID: song.objectID, expectedVersion: 1, currentVersion: 2)])
        let reader = ObjectContext(coordinator: try first.secondCoordinator().coordinator)
        #expect(try reader.existingObject(with: song.objectID).get("title", as: String.self) == "First")
    }

    @Test func concurrentSavesOfOneObjectFromTwoCoordinatorsGiveExactlyOneConflict() throws {
        let first = try PostgresFixture()
        let song = try first.context.insert("Song", values: ["title": "Blue", "plays": 1])
        try first.context.save()
        let coordinators = [first.coordinator, try first.secondCoordinator().coordinator]
        let outcomes = Outcomes()
        let bothRead = DispatchGroup()
        let go = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for (index, coordinator) in coordinators.enumerated() {
            bothRead.enter()
            done.enter()
            let id = song.objectID
            DispatchQueue.global().async {
                defer { done.leave() }
                // Each thread reads version 1, then both save at once.
                let context = ObjectContext(coordinator: coordinator)
                do {
                    try context.existingObject(with: id).set("plays", Int64(100 + index))
                } catch {
                    outcomes.add("read failed: \(error)")
                }
                bothRead.leave()
                go.wait()
                do {
                    try context.save()
                    outcomes.add("saved")
                } catch GraphError.conflict {
                    outcomes.add("conflict")
                } catch {
                    outcomes.add("\(error)")
                }
            }
        }
        bothRead.wait()
        go.signal()
        go.signal()
        done.wait()
        #expect(outcomes.all.sorted() == ["conflict", "saved"])
        let reader = ObjectContext(coordinator: try first.secondCoordinator().coordinator)
        #expect(try reader.existingObject(with: song.objectID).version == 2)
    }

    @Test func deleteRulesAreAppliedAcrossTheDatabase() throws {
        let fixture = try PostgresFixture()
        let context = fixture.context
        let artist = try context.insert("Artist", values: ["name": "Nina"])
        let album = try context.insert("Album", values: ["title": "Blue"])
        try album.setObject(artist, forKey: "artist")
        let song = try context.insert("Song", values: ["title": "One"])
        try song.setObject(album, forKey: "album")
        let tag = try context.insert("Tag", values: ["name": "jazz"])
        try tag.setObjects([song], forKey: "songs")
        try context.save()

        // deny: the artist with an album cannot go.
        let other = ObjectContext(coordinator: try fixture.secondCoordinator().coordinator)
        #expect(throws: GraphError.self) {
            try other.delete(try other.existingObject(with: artist.objectID))
            try other.save()
        }
        other.rollback()
        // cascade: the album takes its songs; nullify: the tag and artist forget them.
        try other.delete(try other.existingObject(with: album.objectID))
        try other.save()
        let reader = ObjectContext(coordinator: try fixture.secondCoordinator().coordinator)
        #expect(throws: GraphError.self) { try reader.existingObject(with: song.objectID) }
        #expect(try reader.existingObject(with: tag.objectID).objects(forKey: "songs").isEmpty)
        #expect(try reader.existingObject(with: artist.objectID).objects(forKey: "albums").isEmpty)
        #expect(try reader.count(for: FetchRequest(entityName: "Song")) == 0)
    }

    @Test func aDatabaseMadeWithAnotherModelIsRefusedNamingTheEntities() throws {
        let fixture = try PostgresFixture()
        let other = try TestModel.make(extraTagAttributes: [AttributeDescription("color", .string, isOptional: true)])
        let error = #expect(throws: GraphError.self) { try PostgresFixture(model: other, url: fixture.url) }
        #expect(error == GraphError.modelMismatch(entities: ["Tag"]))
    }

    @Test func aSecondStoreOnTheDatabaseReadsTheSameIdentityAndHandsOutOtherReferences() throws {
        let first = try PostgresFixture()
        let second = try first.secondCoordinator()
        #expect(first.store.identifier == second.store.identifier)
        let a = try first.context.insert("Tag", values: ["name": "a"])
        let b = try second.context.insert("Tag", values: ["name": "b"])
        try first.context.save()
        try second.context.save()
        #expect(a.objectID != b.objectID)
        #expect(try first.context.count(for: FetchRequest(entityName: "Tag")) == 2)
    }

    @Test func aUniquenessConstraintRefusesASecondObjectWithTheSameValuesFromAnotherCoordinator() throws {
        let first = try PostgresFixture()
        let jazz = try first.context.insert("Tag", values: ["name": "jazz"])
        try first.context.save()

        let second = try first.secondCoordinator()
        _ = try second.context.insert("Tag", values: ["name": "jazz"])
        let error = #expect(throws: GraphError.self) { try second.context.save() }
        guard case .uniquenessViolation(let entity, let attributes, let values, let objects)? = error else {
            Issue.record("expected a uniqueness violation, got \(String(describing: error))")
            return
        }
        #expect(entity == "Tag" && attributes == ["name"] && values == ["jazz"])
        #expect(objects.count == 2 && objects.first == jazz.objectID)
        #expect(try first.context.count(for: FetchRequest(entityName: "Tag")) == 1)

        // Two new objects of one save with the same values are refused too, naming both.
        let other = try first.secondCoordinator()
        let a = try other.context.insert("Tag", values: ["name": "rock"])
        let b = try other.context.insert("Tag", values: ["name": "rock"])
        let both = #expect(throws: GraphError.self) { try other.context.save() }
        guard case .uniquenessViolation(_, _, _, let pair)? = both else {
            Issue.record("expected a uniqueness violation, got \(String(describing: both))")
            return
        }
        #expect(Set(pair) == Set([a.objectID, b.objectID]))
    }

    @Test func aModelWithANameTheStoreUsesItselfIsRefusedNamingIt() throws {
        let model = try ObjectModel(entities: [EntityDescription("Note", attributes: [AttributeDescription("_version", .int64)])])
        #expect(throws: PostgresStoreError.unsupportedName("_version", reason: "names beginning with _ are the store's own")) {
            try PostgresFixture(model: model)
        }
        let long = String(repeating: "x", count: 64)
        let longModel = try ObjectModel(entities: [EntityDescription("Note", attributes: [AttributeDescription(long, .int64)])])
        #expect(throws: PostgresStoreError.unsupportedName(long, reason: "longer than PostgreSQL's 63 bytes")) {
            try PostgresFixture(model: longModel)
        }
    }

    @Test func aWrongURLIsRefusedWithWhatIsWrong() throws {
        PostgresStore.register()
        let coordinator = StoreCoordinator(model: try TestModel.make())
        #expect(throws: PostgresStoreError.invalidURL("postgresql://127.0.0.1/db", reason: "it names no user")) {
            try coordinator.addPersistentStore(type: PostgresStore.storeType, at: URL(string: "postgresql://127.0.0.1/db"))
        }
        let port = try unusedPort()
        let error = #expect(throws: PostgresStoreError.self) {
            try coordinator.addPersistentStore(type: PostgresStore.storeType, at: URL(string: "postgresql://graph:secret@127.0.0.1:\(port)/db"))
        }
        #expect(error.map { "\($0)" }?.contains("cannot connect to PostgreSQL at postgresql://graph@127.0.0.1:\(port)/db") == true)
        #expect(error.map { "\($0)" }?.contains("secret") == false)
    }
}

/// Outcomes collected from several threads.
final class Outcomes: Sendable {
    private let items = Mutex<[String]>([])
    func add(_ item: String) { items.withLock { $0.append(item) } }
    var all: [String] { items.withLock { $0 } }
}
