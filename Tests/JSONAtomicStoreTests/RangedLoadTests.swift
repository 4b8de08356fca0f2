import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore

/// A large store file is parsed in ranges on every core: the same nodes, in the same order,
/// and the same errors, at the same byte, line and column, as a parse on one thread.
@Suite struct RangedLoadTests {
    let model: ObjectModel
    let directory: TemporaryDirectory
    var url: URL { directory.file("store.json") }

    init() throws {
        model = try CatalogModel.make()
        directory = try TemporaryDirectory()
    }

    /// Writes, through a context, a store of `count` items with every attribute type, every
    /// kind of relationship, escapes, surrogate pairs and decimals of 35 digits.
    func writeRichStore(items count: Int) throws {
        let open = try OpenStore(url, model: model)
        defer { open.close() }
        let context = open.context()
        let owners = try (0..<7).map { index -> ManagedObject in
            let owner = try context.insert("Owner")
            try owner.setValue(.string("owner \(index) \"quoted\" \\ back"), forKey: "name")
            return owner
        }
        let tags = try (0..<5).map { index -> ManagedObject in
            let tag = try context.insert("Tag")
            try tag.setValue(.string("tag \(index) ü"), forKey: "label")
            return tag
        }
        let dog = try context.insert("Dog")
        try dog.setValue(.string("Rex"), forKey: "name")
        let cat = try context.insert("Cat")
        try cat.setValue(.string("Tom"), forKey: "name")
        var previous: ManagedObject?
        for index in 0..<count {
            let item = try context.insert("Item")
            // A note that looks like the place between two objects, a surrogate pair and escapes.
            try item.setValue(.string("item \(index) 😀 é 中 \u{1}\t\"},{\"ref\":\(index)} \\ " + String(repeating: "x", count: 150)),
                              forKey: "name")
            try item.setValue(.int(Int64(index) * 3), forKey: "count")
            try item.setValue(.int(Int64(index % 30_000) - 15_000), forKey: "small")
            try item.setValue(.int(Int64(index) - 2_000_000_000), forKey: "medium")
            try item.setValue(.int(Int64.max - Int64(index)), forKey: "large")
            try item.setValue(.double(Double(index) / 7), forKey: "ratio")
            try item.setValue(.double(Double(Float(index) / 3)), forKey: "weight")
            try item.setValue(Value.parse(text: "1234567890123456789012345678901234.\(index)", as: .decimal) ?? .null, forKey: "price")
            try item.setValue(.bool(index % 2 == 0), forKey: "active")
            try item.setValue(.date(Date(timeIntervalSince1970: 1_700_000_000.125 + Double(index) * 61.5)), forKey: "added")
            try item.setValue(.binary(Data([UInt8(index & 0xFF), 0, 0xFF, 0x10])), forKey: "blob")
            try item.setValue(.uuid(UUID()), forKey: "uid")
            try item.setValue(.uri(try #require(URL(string: "https://example.com/items/\(index)?q=%20"))), forKey: "link")
            try item.setObject(owners[index % owners.count], forKey: "owner")
            try item.setObjects([tags[index % tags.count], tags[(index + 1) % tags.count]], forKey: "tags")
            if index % 50 == 0 {
                let part = try context.insert("Part")
                try part.setValue(.string("part \(index)"), forKey: "title")
                try item.setObjects([part], forKey: "parts")
            }
            if index % 3 == 0 { try item.setObject(index % 2 == 0 ? dog : cat, forKey: "pet") }
            if let partner = previous {
                try item.setObject(partner, forKey: "twin")
                try item.setObject(partner, forKey: "favorite")
                previous = nil
            } else {
                previous = item
            }
        }
        try context.save()
    }

    /// The file at `url` decoded (and its references resolved) in ranges or on one thread.
    func decode(_ store: JSONAtomicStore, inRanges: Bool) throws -> StoreFileDecoder {
        let decoder = StoreFileDecoder(file: store.path, plan: try store.plan(), store: store)
        let descriptor = open(url.path, O_RDONLY)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
        try StoreFileReader.read(descriptor, size: size, path: store.path, into: decoder, inRanges: inRanges)
        try ReferenceResolver.resolve(decoder)
        return decoder
    }

    /// The error of decoding `text` in ranges or on one thread.
    func error(of text: String, inRanges: Bool) throws -> JSONStoreError? {
        try Data(text.utf8).write(to: url)
        let open = try OpenStore(directory.file("other.json"), model: model, readOnly: true)
        do {
            _ = try decode(open.store, inRanges: inRanges)
            return nil
        } catch let error as JSONStoreError {
            return error
        }
    }

    @Test func aFileParsedInRangesGivesTheNodesOfAParseOnOneThread() throws {
        try writeRichStore(items: 9_000)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
        #expect(size > StoreFileReader.parallelThreshold)
        let open = try OpenStore(url, model: model, readOnly: true)
        let ranged = try decode(open.store, inRanges: true)
        let single = try decode(open.store, inRanges: false)
        #expect(ranged.rangesJoined > 2)
        #expect(single.rangesJoined == 0)
        #expect(ranged.nodes.count == 9_000 + 7 + 5 + 2 + 180)
        #expect(ranged.nodes.count == single.nodes.count)
        #expect(ranged.nodeReferences == single.nodeReferences)
        #expect(ranged.nodeEntities == single.nodeEntities)
        #expect(ranged.maxReference == single.maxReference)
        var differing = 0
        for (a, b) in zip(ranged.nodes, single.nodes) where a.objectID != b.objectID || a.version != b.version || a.values != b.values {
            differing += 1
        }
        #expect(differing == 0)
        // And the store opened the usual way holds them too.
        #expect(open.store.cacheNodeCount == single.nodes.count)
        let sample = try #require(single.nodes.first { $0.objectID.entity.name == "Item" })
        #expect(open.store.cacheNode(for: sample.objectID)?.values == sample.values)
    }

    /// A large file of items, one per line, as a hand-written file might be.
    func itemsFile(_ count: Int, replacing item: Int, with text: String) -> String {
        let note = String(repeating: "n", count: 300)
        let items = (1...count).map { ref in
            ref == item ? text : StoreFiles.item(ref, "\"note\":\"\(note)\",\"ratio\":\(Double(ref) / 7)")
        }
        return StoreFiles.document(model, objects: "{\"Item\":[\n" + items.joined(separator: ",\n") + "\n]}")
    }

    @Test(arguments: [
        ("a syntax error", "{\"ref\":9000,\"version\":1,\"values\":{\"name\":\"x\",\"ratio\":1.}}"),
        ("a value of the wrong type", "{\"ref\":9000,\"version\":1,\"values\":{\"name\":5}}"),
        ("a key given twice", "{\"ref\":9000,\"version\":1,\"values\":{\"name\":\"a\",\"name\":\"b\"}}"),
        ("an unpaired surrogate escape", "{\"ref\":9000,\"version\":1,\"values\":{\"name\":\"a\\ud800b\"}}"),
        ("a control character", "{\"ref\":9000,\"version\":1,\"values\":{\"name\":\"a\u{1}b\"}}"),
        ("an unknown property", "{\"ref\":9000,\"version\":1,\"values\":{\"name\":\"a\",\"nope\":1}}"),
        ("an object cut short", "{\"ref\":9000,\"version\":1,\"values\":{\"name\":\"a\"}"),
    ])
    func anErrorInTheMiddleOfALargeFileIsTheErrorOfAParseOnOneThread(_ what: String, _ item: String) throws {
        let text = itemsFile(20_000, replacing: 9_000, with: item)
        #expect(text.utf8.count > StoreFileReader.parallelThreshold)
        let single = try error(of: text, inRanges: false)
        let ranged = try error(of: text, inRanges: true)
        #expect(single != nil, "\(what)")
        #expect(ranged == single, "\(what)")
    }

    @Test func aSyntaxErrorInALaterRangeNamesItsByteLineAndColumn() throws {
        let text = itemsFile(20_000, replacing: 15_000, with: "{\"ref\":15000,\"version\":1,\"values\":{\"name\":\"x\"}}}")
        let line = text.split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex { $0.hasPrefix("{\"ref\":15000,") }.map { $0 + 1 } ?? -1
        let error = try error(of: text, inRanges: true)
        guard case .invalidJSON(_, let offset, let errorLine, let column, _)? = error else {
            Issue.record("expected invalidJSON, got \(String(describing: error))")
            return
        }
        let start = try #require(text.range(of: "{\"ref\":15000,"))
        let lineStart = text.utf8.distance(from: text.startIndex, to: start.lowerBound)
        #expect(errorLine == line)
        #expect(offset == lineStart + column - 1)
        #expect(offset > lineStart + 40 && offset <= lineStart + 48)
    }

    @Test func objectsThatAreNotInAnEntitysArrayAreNotTakenForOne() throws {
        // An unknown top-level key after "objects" holds what looks like store objects: the
        // places to cut land in it, and the parse of the whole file skips it as it should.
        let items = (1...40_000).map { "{\"ref\":\($0),\"version\":1,\"values\":{\"name\":\"\(String(repeating: "q", count: 100))\"}}" }
        var text = StoreFiles.document(model, objects: "{\"Item\":[\(StoreFiles.item(1))]}")
        text = String(text.dropLast(2)) + ",\"extra\":[" + items.joined(separator: ",") + "]}\n"
        #expect(text.utf8.count > StoreFileReader.parallelThreshold)
        #expect(try error(of: text, inRanges: true) == nil)
        let open = try OpenStore(url, model: model, readOnly: true)
        #expect(open.store.cacheNodeCount == 1)
    }
}
