import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore

@Suite struct RoundTripTests {
    let model: ObjectModel
    let directory: TemporaryDirectory

    init() throws {
        model = try CatalogModel.make()
        directory = try TemporaryDirectory()
    }

    /// Saves what `fill` inserts, reopens the file and returns both dumps and the reopened store.
    func roundTrip(_ fill: (ObjectContext) throws -> Void) throws -> (before: [String: [String]], after: [String: [String]], reopened: OpenStore) {
        let url = directory.file("store.json")
        let first = try OpenStore(url, model: model)
        let context = first.context()
        try fill(context)
        try context.save()
        let before = first.dump()
        first.close()
        let second = try OpenStore(url, model: model)
        return (before, second.dump(), second)
    }

    func values(of context: ObjectContext, entity: String, sortedBy key: String) throws -> [ManagedObject] {
        try context.fetch(FetchRequest(entityName: entity, sortDescriptors: [SortDescriptor(key)]))
    }

    @Test func everyAttributeTypeRoundTripsExactly() throws {
        let date = Date(timeIntervalSince1970: 1_714_566_600.25)
        let uid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let large = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let rows: [[String: Value]] = [
            ["name": "a: limits high", "small": .int(Int64(Int16.max)), "medium": .int(Int64(Int32.max)), "large": .int(Int64.max),
             "ratio": .double(.greatestFiniteMagnitude), "weight": .double(Double(Float.greatestFiniteMagnitude)),
             "price": .decimal(Decimal(string: "12345678901234567890.123")!), "active": true, "added": .date(date),
             "blob": .binary(Data()), "uid": .uuid(uid), "link": .uri(URL(string: "https://example.com/a?b=c&d=%20e")!)],
            ["name": "b: limits low", "small": .int(Int64(Int16.min)), "medium": .int(Int64(Int32.min)), "large": .int(Int64.min),
             "ratio": .double(-Double.leastNonzeroMagnitude), "weight": .double(Double(Float(0.1))),
             "price": .decimal(Decimal(string: "-0.5")!), "active": false,
             "added": .date(Date(timeIntervalSince1970: -0.001)), "blob": .binary(large), "count": .int(-1)],
            ["name": "c: specials", "ratio": .double(.nan), "weight": .double(.infinity), "score": .double(-.infinity),
             "price": .decimal(.nan), "note": "", "added": .date(Date(timeIntervalSince1970: 253_402_300_799.999))],
            ["name": "d: ünïcödé \"quoted\" \\ back\nslash\ttab \u{1} 🎵 日本語", "note": "\u{0}nul inside",
             "ratio": .double(0.1), "score": .double(-0.0), "added": .date(Date(timeIntervalSince1970: -62_135_596_800))],
            ["name": "e: defaults"],
        ]
        let trip = try roundTrip { context in
            for row in rows { _ = try context.insert("Item", values: row) }
        }
        #expect(trip.before == trip.after)
        let reader = trip.reopened.context()
        let items = try values(of: reader, entity: "Item", sortedBy: "name")
        #expect(items.count == rows.count)
        for (item, row) in zip(items, rows) {
            for (key, expected) in row {
                let value = try item.value(forKey: key)
                #expect(OpenStore.text(value) == OpenStore.text(expected), "\(key) of \(row["name"]!)")
            }
        }
        #expect(try items[4].value(forKey: "count") == .int(7))
        #expect(try items[4].value(forKey: "score") == .double(1.5))
        #expect(try items[4].value(forKey: "note") == .null)
        let text = try fileText(directory.file("store.json"))
        #expect(text.contains("\"large\":9223372036854775807"))
        #expect(text.contains("\"large\":-9223372036854775808"))
        #expect(text.contains("\"added\":\"2024-05-01T12:30:00.250Z\""))
        #expect(text.contains("\"uid\":\"e621e1f8-c36c-495a-93fc-0c247a3e6e5f\""))
        #expect(text.contains("\"ratio\":\"NaN\"") && text.contains("\"weight\":\"Infinity\"") && text.contains("\"score\":\"-Infinity\""))
        #expect(text.contains("\"weight\":0.10000000149011612"))
        #expect(text.contains("日本語 🎵") == false && text.contains("🎵 日本語"), "non-ASCII written as itself")
        #expect(text.contains("\\u0000nul inside") && text.contains("\\u0001"))
        #expect(text.hasSuffix("}\n") && !text.dropLast().contains("\n"))
    }

    @Test func relationshipsOfEveryKindRoundTrip() throws {
        let trip = try roundTrip { context in
            let owner = try context.insert("Owner", values: ["name": "Ann"])
            let a = try context.insert("Item", values: ["name": "a"])
            let b = try context.insert("Item", values: ["name": "b"])
            let c = try context.insert("Item", values: ["name": "c"])
            try a.setObject(owner, forKey: "owner")
            try b.setObject(owner, forKey: "owner")
            try a.setObject(b, forKey: "twin")
            try c.setObject(a, forKey: "favorite")
            let parts = try (0..<4).map { try context.insert("Part", values: ["title": .string("p\($0)")]) }
            try a.setObjects([parts[3], parts[1], parts[2], parts[0]], forKey: "parts")
            let red = try context.insert("Tag", values: ["label": "red"])
            let blue = try context.insert("Tag", values: ["label": "blue"])
            try a.setObjects([red, blue], forKey: "tags")
            try b.setObjects([blue], forKey: "tags")
            let dog = try context.insert("Dog", values: ["name": "Rex"])
            let cat = try context.insert("Cat", values: ["name": "Tom", "lives": 3])
            try a.setObject(dog, forKey: "pet")
            try b.setObject(dog, forKey: "pet")
            try c.setObject(cat, forKey: "pet")
        }
        #expect(trip.before == trip.after)
        let reader = trip.reopened.context()
        let items = try values(of: reader, entity: "Item", sortedBy: "name")
        let (a, b, c) = (items[0], items[1], items[2])
        #expect(try a.object(forKey: "owner")?.get("name", as: String.self) == "Ann")
        #expect(try a.object(forKey: "twin") === b && b.object(forKey: "twin") === a)
        #expect(try c.object(forKey: "favorite") === a)
        #expect(try a.objects(forKey: "parts").map { try $0.get("title", as: String.self) } == ["p3", "p1", "p2", "p0"])
        #expect(try Set(a.objects(forKey: "tags").map { try $0.get("label", as: String.self) }) == ["red", "blue"])
        #expect(try a.object(forKey: "pet")?.entity.name == "Dog")
        #expect(try c.object(forKey: "pet")?.entity.name == "Cat")
        #expect(try c.object(forKey: "pet")?.get("lives", as: Int.self) == 3)
        let owner = try #require(try a.object(forKey: "owner"))
        #expect(try owner.objects(forKey: "items").count == 2)
    }

    @Test func savingTwiceWritesIdenticalBytes() throws {
        let url = directory.file("store.json")
        let open = try OpenStore(url, model: model)
        let context = open.context()
        for i in 0..<50 {
            let item = try context.insert("Item", values: ["name": .string("item \(i)"), "ratio": .double(Double(i) / 3)])
            let tag = try context.insert("Tag", values: ["label": .string("t\(i)")])
            try item.setObjects([tag], forKey: "tags")
        }
        try context.save()
        try open.store.checkpoint()
        let first = try Data(contentsOf: url)
        // A save with no change of content: the same bytes.
        let item = try context.fetch(FetchRequest(entityName: "Item"))[0]
        try item.set("note", "x")
        try context.save()
        try item.setValue(.null, forKey: "note")
        try context.save()
        try open.store.checkpoint()
        let third = try Data(contentsOf: url)
        #expect(first.count == third.count)
        #expect(String(decoding: first, as: UTF8.self)
            == String(decoding: third, as: UTF8.self).replacingOccurrences(of: "\"version\":3", with: "\"version\":1")
            .replacingOccurrences(of: "\"commitSequence\":3", with: "\"commitSequence\":1"))
        // Reopening and saving again (no change) keeps the bytes.
        open.close()
        let again = try OpenStore(url, model: model)
        try again.store.save()
        #expect(try Data(contentsOf: url) == third)
    }

    @Test func anUnchangedStoreSavesItsFileByteForByte() throws {
        let url = directory.file("store.json")
        let golden = try goldenFileURL()
        try FileManager.default.copyItem(at: golden, to: url)
        let open = try OpenStore(url, model: model)
        try open.store.save()
        #expect(try fileText(url) == fileText(golden))
    }

    @Test func aSmallGraphIsWrittenAsTheGoldenFile() throws {
        let url = directory.file("store.json")
        let open = try OpenStore(url, model: model)
        open.store.metadata.storeIdentifier = "5d8f0c9e-2b7a-4c41-8e0f-7a6b5c4d3e2f"
        open.store.metadata.userInfo = ["b": "2", "a": "1"]
        let context = open.context()
        let owner = try context.insert("Owner", values: ["name": "Ann"])
        let item = try context.insert("Item", values: [
            "name": "Lamp", "small": 3, "ratio": 0.1, "price": .decimal(Decimal(string: "9.99")!), "active": true,
            "added": .date(Date(timeIntervalSince1970: 1_714_566_600.25)), "blob": .binary(Data([0, 1, 2, 255])),
            "uid": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
            "link": .uri(URL(string: "https://example.com/lamp")!),
        ])
        try item.setObject(owner, forKey: "owner")
        let part = try context.insert("Part", values: ["title": "bulb"])
        try item.setObjects([part], forKey: "parts")
        let dog = try context.insert("Dog", values: ["name": "Rex"])
        try item.setObject(dog, forKey: "pet")
        try context.save()
        try open.store.checkpoint()
        let written = try fileText(url)
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] != nil {
            try written.write(to: goldenFileURL(), atomically: true, encoding: .utf8)
        }
        #expect(written == (try fileText(goldenFileURL())))
    }

    func goldenFileURL() throws -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/golden/small-graph.json")
    }
}
