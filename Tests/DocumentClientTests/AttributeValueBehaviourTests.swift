import Foundation
import GraphCore
import Testing

/// Every attribute type keeps its value exactly through a save: read by a second context (over
/// the network for a DocumentServer) and, where the store persists, after reopening it.
///
/// Dates are whole milliseconds: the store file and the wire keep milliseconds (docs/MODEL.md,
/// "Dates"), so a finer date would come back rounded from a file or a server but not from memory.
@Suite struct AttributeValueBehaviourTests {
    /// Three specimens: ordinary values, limits and special values, and every optional nil.
    private static func specimens() throws -> [String: [String: Value]] {
        let uid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let link = try #require(URL(string: "https://example.com/a?b=c&d=%20e#frag"))
        let mail = try #require(URL(string: "mailto:someone@example.com"))
        let price = try #require(Decimal(string: "12345678901234567890.123"))
        let negative = try #require(Decimal(string: "-0.5"))
        return [
            "ordinary": [
                "text": "ünïcödé \"quoted\" \\ back\nslash\ttab 🎵 日本語",
                "small": .int(-12), "medium": .int(100_000), "large": .int(1 << 40),
                "ratio": .double(0.1), "weight": .double(Double(Float(2.5))), "price": .decimal(price),
                "flag": true, "moment": .date(Date(timeIntervalSince1970: 1_714_566_600.25)),  // 2024-05-01T12:30:00.250Z
                "blob": .binary(Data([0, 1, 2, 255, 0, 128])), "uid": .uuid(uid), "link": .uri(link),
            ],
            "limits": [
                "text": "",
                "small": .int(Int64(Int16.min)), "medium": .int(Int64(Int32.max)), "large": .int(Int64.min),
                "ratio": .double(.nan), "weight": .double(.infinity), "price": .decimal(negative),
                "flag": false, "moment": .date(Date(timeIntervalSince1970: -86_400.5)),  // 1969-12-30T23:59:59.500Z
                "blob": .binary(Data()), "uid": .uuid(UUID()), "link": .uri(mail),
            ],
            "nil": [:],
        ]
    }

    /// The optional attributes of `Specimen` (all but `label`).
    private static let keys = ["text", "small", "medium", "large", "ratio", "weight", "price", "flag",
                               "moment", "blob", "uid", "link"]

    @Test(arguments: StoreKind.allCases)
    func everyAttributeTypeRoundTripsExactly(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        let specimens = try Self.specimens()
        var objects: [String: ManagedObject] = [:]
        for (label, values) in specimens {
            var all = values
            all["label"] = .string(label)
            objects[label] = try store.context.insert("Specimen", values: all)
        }
        try store.context.save()
        let ids = objects.mapValues(\.objectID)  // permanent since the save

        try expectSpecimens(specimens, in: store.secondContext(), ids: ids, after: "a save, in a second context")
        if kind.persists {
            try expectSpecimens(specimens, in: store.reopen(), ids: ids, after: "reopening the store")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anUpdateToNilAndBackIsSaved(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        let specimen = try store.context.insert("Specimen", values: ["label": "x", "text": "first", "large": 1])
        try store.context.save()

        try specimen.setValue(nil, forKey: "text")
        try specimen.setValue(.int(2), forKey: "large")
        try store.context.save()
        let second = try store.secondContext()
        let seen = try second.existingObject(with: specimen.objectID)
        #expect(try seen.value(forKey: "text") == .null)
        #expect(try seen.value(forKey: "large") == .int(2))
        #expect(seen.version == 2)

        try specimen.setValue("again", forKey: "text")
        try store.context.save()
        try second.refresh(seen, mergeChanges: false)
        #expect(try seen.value(forKey: "text") == "again")
        #expect(seen.version == 3)
    }

    private func expectSpecimens(_ specimens: [String: [String: Value]], in context: ObjectContext,
                                 ids: [String: ObjectID], after what: String) throws {
        let fetched = try context.all("Specimen", sortedBy: "label")
        #expect(try strings("label", of: fetched) == specimens.keys.sorted(), "after \(what)")
        for object in fetched {
            let label = try object.string("label")
            #expect(object.objectID == ids[label], "\(label) after \(what)")
            let expected = specimens[label] ?? [:]
            for key in Self.keys {
                let value = try object.value(forKey: key)
                let want = expected[key] ?? .null
                #expect(Self.same(value, want), "\(label).\(key) after \(what): got \(value), expected \(want)")
            }
        }
    }

    /// Equal values, where NaN equals NaN (a double NaN, a decimal NaN).
    private static func same(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.double(let x), .double(let y)) where x.isNaN || y.isNaN: return x.isNaN && y.isNaN
        case (.decimal(let x), .decimal(let y)) where x.isNaN || y.isNaN: return x.isNaN && y.isNaN
        default: return a == b
        }
    }
}
