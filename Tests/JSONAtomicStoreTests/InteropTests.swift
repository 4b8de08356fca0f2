import Foundation
import GraphCore
import JSONAtomicStore
import Testing

/// The store file is a contract with other languages: a standard-library Python script
/// written from docs/FILE_FORMAT.md alone (clients/python/tests/store_file.py, which the
/// Python client's tests use too) writes a store that Swift opens, and reads the one Swift
/// writes back.
@Suite("Interoperability with Python")
struct InteropTests {
    @Test("a store file written by Python from the documents opens in Swift with every value intact")
    func pythonWrittenStoreLoads() throws {
        let directory = try TemporaryDirectory()
        let storeURL = directory.url.appendingPathComponent("catalog.json")
        try Python.run("write-sample", storeURL.path)

        let container = try Interop.open(storeURL)
        let context = container.viewContext
        let books = try Interop.byName(context, "Book")
        let dispossessed = try #require(books["The Dispossessed"])
        #expect(dispossessed.objectID.uriRepresentation == "graph://5d8f0c9e-2b7a-4c41-8e0f-7a6b5c4d3e2f/Book/2")
        #expect(try dispossessed.get("pages", as: Int16.self) == .max)
        #expect(try dispossessed.get("words", as: Int32.self) == .min)
        #expect(try dispossessed.get("isbn", as: Int64.self) == .max)
        #expect(try dispossessed.value(forKey: "price") == .decimal(Decimal(string: "12345678901234567890.123")!))
        #expect(try dispossessed.get("rating", as: Double.self) == 0.1)
        #expect(try dispossessed.get("weight", as: Double.self) == Double(Float(0.1)))
        #expect(try dispossessed.value(forKey: "published") == .date(Date(timeIntervalSince1970: 136_643_400.25)))
        #expect(try dispossessed.get("inPrint", as: Bool.self))
        #expect(try dispossessed.get("cover", as: Data.self) == Data((0..<400).flatMap { _ in (0...255).map(UInt8.init) }))
        #expect(try dispossessed.value(forKey: "uid") == .uuid(UUID(uuidString: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")!))
        #expect(try dispossessed.value(forKey: "homepage") == .uri(URL(string: "https://example.com/books/dispossessed?lang=en&x=%20y")!))
        #expect(try dispossessed.object(forKey: "author")?.get("name", as: String.self) == "Ursula K. Le Guin")
        #expect(try dispossessed.objects(forKey: "chapters").map { try $0.get("title", as: String.self) } == ["Urras", "Anarres"])
        #expect(try Set(dispossessed.objects(forKey: "tags").map { try $0.get("label", as: String.self) }) == ["sf", "classic"])

        let untitled = try #require(books[""])
        #expect(try untitled.get("pages", as: Int16.self) == .min)
        #expect(try untitled.get("isbn", as: Int64.self) == .min)
        #expect(try untitled.get("rating", as: Double.self).isNaN)
        #expect(try untitled.get("weight", as: Double.self) == -.infinity)
        #expect(try untitled.value(forKey: "published") == .date(Date(timeIntervalSince1970: -0.001)))
        #expect(try untitled.get("cover", as: Data.self) == Data())
        #expect(try untitled.value(forKey: "homepage") == .null)
        #expect(try untitled.get("inPrint", as: Bool.self) == false)

        let authors = try Interop.byName(context, "Author")
        #expect(authors["Ünïcödé \"quoted\" \\ back\nslash\ttab 🎵 日本語"] != nil)
        let magazine = try #require(try Interop.byName(context, "Magazine")["Galaxy"])
        #expect(try magazine.get("issue", as: Int32.self) == .max)
        // A to-many relationship to an abstract entity holds objects of both sub-entities.
        let sf = try #require(try context.fetch(FetchRequest(entityName: "Tag")).first { try $0.get("label", as: String.self) == "sf" })
        #expect(try Set(sf.objects(forKey: "items").map(\.objectID.entityName)) == ["Book", "Magazine"])
        #expect(try context.fetch(FetchRequest(entityName: "Item")).count == 4)
    }

    @Test("a store Swift writes is read by Python from the documents and holds the same objects")
    func swiftWrittenStoreReadsInPython() throws {
        let directory = try TemporaryDirectory()
        let storeURL = directory.url.appendingPathComponent("catalog.json")
        try Python.run("write-sample", storeURL.path)

        // Change the Python-written graph in Swift: the whole file is written again by Swift.
        do {
            let container = try Interop.open(storeURL)
            let context = container.viewContext
            let books = try Interop.byName(context, "Book")
            try #require(books["Orphan"]).set("name", "Renamed")
            let anarres = try #require(try context.fetch(FetchRequest(entityName: "Chapter")).first { try $0.get("title", as: String.self) == "Anarres" })
            try context.delete(anarres)
            let tag = try context.insert("Tag", values: ["label": .string("new")])
            try tag.add(try #require(try Interop.byName(context, "Magazine")["Galaxy"]), toKey: "items")
            try context.save()
            #expect(tag.objectID.uriRepresentation.hasSuffix("/Tag/11"))
        }

        var expected = try Python.json("sample")
        try Interop.edit(&expected, "Book", "10") { $0["name"] = "Renamed" }
        try Interop.edit(&expected, "Book", "2") { $0["chapters"] = [5] }
        try Interop.edit(&expected, "Magazine", "6") { $0["tags"] = [7, 11] }
        var chapters = try #require(expected["Chapter"] as? [String: Any])
        chapters["4"] = nil
        expected["Chapter"] = chapters
        var tags = try #require(expected["Tag"] as? [String: Any])
        tags["11"] = ["label": "new", "items": [6]]
        expected["Tag"] = tags

        let actual = try Python.json("dump", storeURL.path)
        #expect(NSDictionary(dictionary: actual).isEqual(to: expected), "Python read \(actual)")
    }
}

enum Interop {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/interop")
    static let model = fixtures.appendingPathComponent("catalog.model.json")
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("clients/python/tests/store_file.py")

    static func open(_ storeURL: URL) throws -> PersistentContainer {
        JSONAtomicStore.register()
        return try PersistentContainer(modelFile: model, storeType: JSONAtomicStore.storeType, storeURL: storeURL)
    }

    /// The objects of an entity by their `name` attribute.
    static func byName(_ context: ObjectContext, _ entity: String) throws -> [String: ManagedObject] {
        var result: [String: ManagedObject] = [:]
        for object in try context.fetch(FetchRequest(entityName: entity)) {
            result[try object.get("name", as: String.self)] = object
        }
        return result
    }

    /// Edits one object's values in a canonical graph.
    static func edit(_ graph: inout [String: Any], _ entity: String, _ ref: String, _ change: (inout [String: Any]) -> Void) throws {
        var objects = try #require(graph[entity] as? [String: Any])
        var values = try #require(objects[ref] as? [String: Any])
        change(&values)
        objects[ref] = values
        graph[entity] = objects
    }
}

/// Runs clients/python/tests/store_file.py with python3.
enum Python {
    static func run(_ command: String, _ arguments: String...) throws {
        _ = try output([command] + arguments)
    }

    static func json(_ command: String, _ arguments: String...) throws -> [String: Any] {
        let data = try output([command] + arguments)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private static func output(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Interop.script.path, arguments[0], Interop.model.path] + arguments.dropFirst()
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if process.terminationStatus != 0 {
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw CrashTestError("store_file.py \(arguments.joined(separator: " ")) failed (\(process.terminationStatus)): \(message)")
        }
        return data
    }
}
