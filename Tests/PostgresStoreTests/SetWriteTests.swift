import Foundation
import GraphCore
import PostgresStore
import PostgresTestSupport
import Testing

/// A save is written with set-based statements (a statement per table or entity, each column
/// bound as one array, cut every 10,000 rows): what a second coordinator reads back is
/// exactly what was saved, whatever the number of objects, their entities and their values.
@Suite(.enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct SetWriteTests {
    @Test func aSaveOfMoreObjectsThanOneStatementTakesIsWrittenReadBackAndUpdatedWhole() throws {
        let fixture = try PostgresFixture()
        let context = fixture.context
        let album = try context.insert("Album", values: ["title": "Many"])
        let tags = try (0..<3).map { try context.insert("Tag", values: ["name": .string("tag \($0)")]) }
        // 10,000 rows per statement: 20,001 take three, the last of one row.
        let count = 20_001
        var songs: [ManagedObject] = []
        for index in 0..<count {
            let song = try context.insert("Song", values: ["title": .string("song \(index)"), "plays": .int(Int64(index)),
                                                           "rating": index % 2 == 0 ? .double(Double(index) / 4) : .null])
            if index % 1000 == 0 {
                try song.setObject(album, forKey: "album")
                try song.setObjects([tags[index % 3], tags[(index + 1) % 3]], forKey: "tags")
            }
            songs.append(song)
        }
        try context.save()

        let reader = try fixture.secondCoordinator().context
        #expect(try reader.count(for: FetchRequest(entityName: "Song")) == count)
        let readAlbum = try reader.existingObject(with: album.objectID)
        #expect(try readAlbum.objects(forKey: "songs").count == (count + 999) / 1000)
        for index in [0, 1, 9_999, 10_000, 19_999, count - 1] {
            let song = try reader.existingObject(with: songs[index].objectID)
            #expect(try song.get("title", as: String.self) == "song \(index)")
            #expect(try song.value(forKey: "plays") == .int(Int64(index)))
            #expect(try song.value(forKey: "rating") == (index % 2 == 0 ? .double(Double(index) / 4) : .null))
            #expect(try song.object(forKey: "album")?.objectID == (index % 1000 == 0 ? album.objectID : nil))
            let expectedTags = index % 1000 == 0 ? [tags[index % 3].objectID, tags[(index + 1) % 3].objectID] : []
            #expect(Set(try song.objects(forKey: "tags").map(\.objectID)) == Set(expectedTags), "song \(index)")
        }

        // One save updates every song (three UPDATE statements) and deletes a tag, whose join
        // rows go with it.
        for (index, song) in songs.enumerated() { try song.setValue(.int(Int64(index) * 2), forKey: "plays") }
        try context.delete(tags[0])
        try context.save()
        let after = try fixture.secondCoordinator().context
        let expected = Dictionary(uniqueKeysWithValues: songs.enumerated().map { ($1.objectID, Value.int(Int64($0) * 2)) })
        let all = try after.fetch(FetchRequest(entityName: "Song"))
        #expect(all.count == count)
        #expect(try all.filter { try $0.value(forKey: "plays") != expected[$0.objectID] || $0.version != 2 }.isEmpty)
        for index in [0, 10_000, count - 1] {
            let song = try after.existingObject(with: songs[index].objectID)
            #expect(try song.value(forKey: "plays") == .int(Int64(index) * 2))
            #expect(song.version == 2)
            #expect(!(try song.objects(forKey: "tags").map(\.objectID)).contains(tags[0].objectID))
        }
        #expect(try after.count(for: FetchRequest(entityName: "Tag")) == 2)
    }

    @Test func oneSaveOfObjectsWithValuesAndWithNullsOfEveryTypeReadsBackEachAsSaved() throws {
        let fixture = try PostgresFixture()
        let full: [String: Value] = [
            "label": "full", "text": "t", "small": .int(-32768), "medium": .int(2_147_483_647), "large": .int(Int64.max),
            "ratio": .double(0.5), "weight": .double(1.5), "price": .decimal(Decimal(string: "-0.000000001")!), "flag": false,
            "moment": .date(Date(timeIntervalSinceReferenceDate: -1.25)), "blob": .binary(Data()), "uid": .uuid(UUID()),
            "link": .uri(URL(string: "urn:x")!),
        ]
        // Rows of one multi-row statement: nulls first, so that no row tells PostgreSQL a type.
        let empty = try fixture.context.insert("Specimen", values: ["label": "empty"])
        let filled = try fixture.context.insert("Specimen", values: full)
        try fixture.context.save()
        let reader = try fixture.secondCoordinator().context
        let readEmpty = try reader.existingObject(with: empty.objectID)
        for key in full.keys where key != "label" { #expect(try readEmpty.value(forKey: key) == .null, "\(key)") }
        let readFilled = try reader.existingObject(with: filled.objectID)
        for (key, value) in full { #expect(try readFilled.value(forKey: key) == value, "\(key)") }

        // And updated together, each to the other's values.
        for (key, value) in full where key != "label" {
            try empty.setValue(value, forKey: key)
            try filled.setValue(.null, forKey: key)
        }
        try fixture.context.save()
        let again = try fixture.secondCoordinator().context
        for (key, value) in full where key != "label" {
            #expect(try again.existingObject(with: empty.objectID).value(forKey: key) == value, "\(key)")
            #expect(try again.existingObject(with: filled.objectID).value(forKey: key) == .null, "\(key)")
        }
    }

    @Test func aUniquenessViolationAmongManyInsertsNamesTheObjectRefusedAndTheOneInTheDatabase() throws {
        let first = try PostgresFixture()
        let jazz = try first.context.insert("Tag", values: ["name": "jazz"])
        try first.context.save()

        let second = try first.secondCoordinator()
        for name in ["a", "b", "c"] { _ = try second.context.insert("Tag", values: ["name": .string(name)]) }
        let duplicate = try second.context.insert("Tag", values: ["name": "jazz"])
        _ = try second.context.insert("Tag", values: ["name": "d"])
        let error = #expect(throws: GraphError.self) { try second.context.save() }
        guard case .uniquenessViolation(let entity, _, let values, let objects)? = error else {
            Issue.record("expected a uniqueness violation, got \(String(describing: error))")
            return
        }
        #expect(entity == "Tag" && values == ["jazz"])
        #expect(objects == [jazz.objectID, duplicate.objectID])
        #expect(try first.context.count(for: FetchRequest(entityName: "Tag")) == 1)
    }
}
