import Foundation
import Testing
@testable import GraphCore
import ServerTestSupport

/// Fetch index elements on a to-one relationship: keyed by the destination's ID, kept up to
/// date however the relationship changes, and used for `==`, `IN`, `== nil`, compound ranges
/// and the order of a compound index's next element.
@Suite struct ToOneIndexTests {
    static let modelJSON = """
        {"entities": [
          {"name": "Album", "attributes": [{"name": "title", "type": "string"}],
           "relationships": [{"name": "songs", "destination": "Song", "inverse": "album", "toMany": true, "deleteRule": "nullify"}]},
          {"name": "Song",
           "attributes": [{"name": "title", "type": "string"}, {"name": "trackNumber", "type": "int64"}],
           "relationships": [{"name": "album", "destination": "Album", "inverse": "songs"}],
           "fetchIndexes": [{"name": "byAlbum", "elements": [{"property": "album"}]},
                            {"name": "byAlbumTrack", "elements": [{"property": "album"}, {"property": "trackNumber", "order": "descending"}]}]}]}
        """

    /// Three albums of 8 tracks each (track numbers 1-8), and 4 songs on no album.
    static func container() throws -> (PersistentContainer, [ManagedObject]) {
        let container = try PersistentContainer.inMemory(model: try ObjectModel(json: Data(modelJSON.utf8), path: "albums.json"))
        let context = container.viewContext
        let albums = try (0..<3).map { try context.insert("Album", values: ["title": .string("Album \($0)")]) }
        for (a, album) in albums.enumerated() {
            for track in [5, 2, 8, 1, 7, 3, 6, 4] {
                let song = try context.insert("Song", values: ["title": .string("Song \(a)-\(track)"), "trackNumber": .int(Int64(track))])
                try song.setObject(album, forKey: "album")
            }
        }
        for n in 0..<4 { try context.insert("Song", values: ["title": .string("Single \(n)"), "trackNumber": .int(1)]) }
        try context.save()
        return (container, albums)
    }

    static func fetch(_ request: FetchRequest, _ container: PersistentContainer) throws -> (titles: [String], plan: String) {
        let store = try #require(container.coordinator.persistentStores.first as? AtomicStore)
        let titles = try container.newContext().fetch(request).map { object -> String in try object.get("title") }
        return (titles, try store.explain(request).description)
    }

    static func request(_ format: String, _ arguments: any PredicateArgument...) throws -> FetchRequest {
        FetchRequest(entityName: "Song", predicate: try Predicate(format: format, arguments: arguments.map(\.predicateValue)))
    }

    @Test func equalityInAndNilOnTheRelationshipUseItsIndex() throws {
        let (container, albums) = try Self.container()
        let one = try Self.fetch(Self.request("album == %@", albums[1]), container)
        #expect(one.titles.sorted() == (1...8).map { "Song 1-\($0)" })
        #expect(one.plan == "index byAlbum on album (==), examined 8 objects")
        let two = try Self.fetch(Self.request("album IN %@", [albums[0].objectID, albums[2].objectID]), container)
        #expect(two.titles.count == 16 && two.plan == "index byAlbum on album (IN), examined 16 objects")
        let none = try Self.fetch(Self.request("album == nil"), container)
        #expect(none.titles.sorted() == ["Single 0", "Single 1", "Single 2", "Single 3"])
        #expect(none.plan == "index byAlbum on album (==), examined 4 objects")
    }

    @Test func aCompoundIndexAnswersAnEqualityAndARangeAndGivesTheOrderOfItsSecondElement() throws {
        let (container, albums) = try Self.container()
        let range = try Self.fetch(Self.request("album == %@ AND trackNumber > 3", albums[2]), container)
        #expect(range.titles.sorted() == (4...8).map { "Song 2-\($0)" })
        #expect(range.plan == "index byAlbumTrack on album, trackNumber (==, >), examined 5 objects")

        var sorted = try Self.request("album == %@", albums[0])
        sorted.sortDescriptors = [SortDescriptor("trackNumber")]
        sorted.fetchLimit = 3
        let firstTracks = try Self.fetch(sorted, container)
        #expect(firstTracks.titles == ["Song 0-1", "Song 0-2", "Song 0-3"])
        #expect(firstTracks.plan == "index byAlbumTrack on album, trackNumber (==, ORDER BY), sorted by the index, examined 3 objects")
        sorted.sortDescriptors = [SortDescriptor("trackNumber", ascending: false)]
        sorted.predicate = try Predicate(format: "album == %@ AND trackNumber < 6", albums[0])
        let lastTracks = try Self.fetch(sorted, container)
        #expect(lastTracks.titles == ["Song 0-5", "Song 0-4", "Song 0-3"])
        #expect(lastTracks.plan == "index byAlbumTrack on album, trackNumber (==, <), sorted by the index, examined 3 objects")
    }

    @Test func theIndexFollowsTheRelationshipThroughItsInverseAndANullifyingDelete() throws {
        let (container, albums) = try Self.container()
        let context = container.newContext()
        // Moved through the inverse: Album 0's `songs` takes a single.
        let single = try #require(try context.fetch(Self.request("title == 'Single 0'")).first)
        try context.object(with: albums[0].objectID).add(single, toKey: "songs")
        try context.save()
        #expect(try Self.fetch(Self.request("album == %@", albums[0]), container).titles.count == 9)
        // Album 1 deleted: its songs' `album` nullified.
        try context.delete(context.object(with: albums[1].objectID))
        try context.save()
        let orphans = try Self.fetch(Self.request("album == nil"), container)
        #expect(orphans.titles.count == 3 + 8 && orphans.plan.hasPrefix("index byAlbum on album (==)"))
        #expect(try Self.fetch(Self.request("album == %@", albums[1]), container).titles.isEmpty)
        // And the snapshot indexes a server keeps, built from the store's objects, agree.
        let store = try #require(container.coordinator.persistentStores.first as? AtomicStore)
        let model = try #require(store.model)
        let snapshots = store.cacheNodes().map { ObjectSnapshot(objectID: $0.objectID, version: $0.version, values: $0.values) }
        let byID = Dictionary(uniqueKeysWithValues: snapshots.map { ($0.objectID, $0) })
        let indexes = SnapshotIndexes(model: model, snapshots: snapshots)
        let fetch = try SnapshotFetch(Self.request("album == nil"), model: model, resolve: { byID[$0] })
        let found = try #require(try fetch.indexed(indexes, included: ["Song"], lookup: { entity in
            { reference in byID.values.first { $0.objectID.entityName == entity && $0.objectID.referenceObject == reference } }
        }))
        #expect(found.snapshots.count == 11 && found.plan.description.hasPrefix("index byAlbum on album (==)"))
    }

    @Test func aToManyRelationshipIsNoIndexElement() throws {
        let wrong = Self.modelJSON.replacingOccurrences(of: #""attributes": [{"name": "title", "type": "string"}],"#,
                                                        with: #""attributes": [{"name": "title", "type": "string"}], "fetchIndexes": [{"name": "bySongs", "elements": [{"property": "songs"}]}],"#)
        #expect(wrong != Self.modelJSON)
        #expect(throws: ModelError.self) { try ObjectModel(json: Data(wrong.utf8), path: "albums.json") }
    }

    @Test func anXcodeModelsIndexOnAToOneRelationshipIsReadAndOneOnAToManyLeftOut() throws {
        let imported = try XcodeFixtures.importing("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="22G120" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
                <entity name="Album" syncable="YES">
                    <attribute name="title" attributeType="String"/>
                    <relationship name="songs" toMany="YES" deletionRule="Nullify" destinationEntity="Song" inverseName="album" inverseEntity="Song"/>
                    <fetchIndex name="bySongs">
                        <fetchIndexElement property="songs" type="Binary" order="ascending"/>
                    </fetchIndex>
                </entity>
                <entity name="Song" syncable="YES">
                    <attribute name="trackNumber" attributeType="Integer 64" usesScalarValueType="YES"/>
                    <relationship name="album" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Album" inverseName="songs" inverseEntity="Album"/>
                    <fetchIndex name="byAlbumTrack">
                        <fetchIndexElement property="album" type="Binary" order="ascending"/>
                        <fetchIndexElement property="trackNumber" type="Binary" order="descending"/>
                    </fetchIndex>
                </entity>
            </model>
            """)
        let song = try #require(imported.model.entity(named: "Song"))
        #expect(song.fetchIndexes.map(\.name) == ["byAlbumTrack"])
        #expect(IndexDefinition.all(of: song).first?.elements.map(\.key) == ["album", "trackNumber"])
        #expect(imported.model.entity(named: "Album")?.fetchIndexes.isEmpty == true)
        #expect(imported.notes.contains { $0.message.contains("'songs', a to-many relationship") })
    }
}
