import Foundation
import ServerTestSupport

/// A small catalogue of the sample model (two artists, two albums, six songs), inserted by one
/// `save` with temporary IDs; `ids` maps those temporary IDs to the permanent ones.
struct SampleData {
    let ids: [String: String]

    /// Song titles by temporary ID, with their plays.
    static let songs: [(id: String, title: String, plays: Int, album: String)] = [
        ("s1", "So What", 7, "b1"),
        ("s2", "Freddie Freeloader", 3, "b1"),
        ("s3", "Blue in Green", 12, "b1"),
        ("s4", "all Blues", 0, "b1"),
        ("s5", "Gloria's Step", 5, "b2"),
        ("s6", "alice in Wonderland", 9, "b2"),
    ]

    /// The `params` of the save that inserts the catalogue.
    static var insertParams: [String: Any] {
        var insert: [[String: Any]] = [
            ["id": "a1", "entity": "Artist", "values": ["name": "Miles Davis", "country": "US"]],
            ["id": "a2", "entity": "Artist", "values": ["name": "Bill Evans"]],
            ["id": "b1", "entity": "Album", "values": ["title": "Kind of Blue", "artist": "a1",
                                                        "released": "1959-08-17T00:00:00Z", "price": "9.99"]],
            ["id": "b2", "entity": "Album", "values": ["title": "Sunday at the Village Vanguard", "artist": "a2",
                                                        "released": "1961-10-01T00:00:00Z", "price": "12.5"]],
        ]
        for song in songs {
            insert.append(["id": song.id, "entity": "Song", "values": ["title": song.title, "plays": song.plays, "album": song.album]])
        }
        return ["insert": insert]
    }

    /// Inserts the catalogue through `client`.
    static func insert(through client: LineClient) throws -> SampleData {
        let result = try client.result("save", insertParams)
        guard let ids = result["ids"].stringValues, ids.count == 10 else {
            throw HarnessError("the sample save did not return 10 ids: \(result)")
        }
        return SampleData(ids: ids)
    }

    subscript(temporaryID: String) -> String { ids[temporaryID] ?? "<no id for \(temporaryID)>" }

    func title(of id: String) -> String? {
        Self.songs.first { ids[$0.id] == id }?.title
    }
}

/// The reference of an object ID (its last path component).
func reference(of id: String) -> Int? {
    id.split(separator: "/").last.flatMap { Int($0) }
}

/// Reads a live store (docs/FILE_FORMAT.md: the store file, then the records of its journal
/// `<file>-journal`, if any) with Foundation's JSONSerialization.
struct StoreFileContents {
    let json: JSON

    init(_ url: URL) throws {
        guard var document = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] else {
            throw HarnessError("\(url.path) is not a JSON object")
        }
        let journal = (try? Data(contentsOf: URL(fileURLWithPath: url.path + "-journal"))) ?? Data()
        var objects = document["objects"] as? [String: [[String: Any]]] ?? [:]
        // Whole lines only: a last line without its newline is a torn record.
        let lines = journal.split(separator: UInt8(ascii: "\n"))
        for line in journal.last == UInt8(ascii: "\n") ? lines : Array(lines.dropLast()) {
            guard let record = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { continue }
            let base = (document["metadata"] as? [String: Any])?["commitSequence"] as? Int ?? 0
            guard let seq = record["seq"] as? Int, seq > base else { continue }
            for key in ["inserted", "updated"] {
                for (entity, list) in record[key] as? [String: [[String: Any]]] ?? [:] {
                    for object in list {
                        objects[entity, default: []].removeAll { $0["ref"] as? Int == object["ref"] as? Int }
                        objects[entity, default: []].append(object)
                    }
                }
            }
            for gone in record["deleted"] as? [[String: Any]] ?? [] {
                guard let entity = gone["entity"] as? String else { continue }
                objects[entity]?.removeAll { $0["ref"] as? Int == gone["reference"] as? Int }
            }
        }
        document["objects"] = objects.filter { !$0.value.isEmpty }
        json = JSON(document)
    }

    var storeUUID: String? { json["metadata"]["storeUUID"].string }

    /// The stored record of the object with this reference, or nil.
    func record(_ entity: String, reference: Int) -> JSON? {
        json["objects"][entity].array?.first { $0["ref"].int == reference }
    }

    func count(_ entity: String) -> Int { json["objects"][entity].count ?? 0 }
}

/// The bytes of a file, or nil when there is none.
func fileBytes(_ url: URL) -> Data? { try? Data(contentsOf: url) }
