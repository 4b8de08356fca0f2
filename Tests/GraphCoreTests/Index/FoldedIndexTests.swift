import Foundation
import Testing
@testable import GraphCore
import ServerTestSupport

/// An index element marked `caseInsensitive` (and `diacriticInsensitive`) in the model file
/// keeps its strings folded and answers `==[c]` and `BEGINSWITH[c]` (`[cd]` likewise).
@Suite struct FoldedIndexTests {
    static let modelJSON = """
        {"entities": [{"name": "Person",
                       "attributes": [{"name": "email", "type": "string"}, {"name": "age", "type": "int64"}],
                       "fetchIndexes": [{"name": "byEmailFolded", "elements": [{"property": "email", "caseInsensitive": true}]},
                                        {"name": "byEmail", "elements": [{"property": "email"}]}]}]}
        """

    static func container() throws -> PersistentContainer {
        let container = try PersistentContainer.inMemory(model: try ObjectModel(json: Data(modelJSON.utf8), path: "folded.json"))
        let context = container.viewContext
        for (n, email) in ["Ann@Example.com", "ann@example.com", "ANNA@example.com", "bob@example.com", "Émile@example.com"].enumerated() {
            try context.insert("Person", values: ["email": .string(email), "age": .int(Int64(n))])
        }
        try context.save()
        return container
    }

    static func fetch(_ format: String, _ container: PersistentContainer) throws -> (emails: [String], plan: FetchPlan) {
        let request = FetchRequest(entityName: "Person", predicate: try Predicate(format: format))
        let store = try #require(container.coordinator.persistentStores.first as? AtomicStore)
        let emails = try container.newContext().fetch(request).map { object -> String in try object.get("email") }.sorted()
        return (emails, try store.explain(request))
    }

    @Test func aCaseInsensitiveEqualityAndPrefixUseTheFoldedIndex() throws {
        let container = try Self.container()
        let equal = try Self.fetch("email ==[c] 'ANN@EXAMPLE.COM'", container)
        #expect(equal.emails == ["Ann@Example.com", "ann@example.com"])
        #expect(equal.plan.description == "index byEmailFolded on email (==[c]), examined 2 objects")
        let prefix = try Self.fetch("email BEGINSWITH[c] 'ann'", container)
        #expect(prefix.emails == ["ANNA@example.com", "Ann@Example.com", "ann@example.com"])
        #expect(prefix.plan.description == "index byEmailFolded on email (BEGINSWITH[c]), examined 3 objects")
        // A plain equality takes the plain index; [cd] has no index folding that way: a scan.
        #expect(try Self.fetch("email == 'ann@example.com'", container).plan.description == "index byEmail on email (==), examined 1 object")
        let both = try Self.fetch("email ==[cd] 'emile@example.com'", container)
        #expect(both.emails == ["Émile@example.com"] && both.plan.access == .scan)
    }

    @Test func theModelFileKeepsTheFlagsAndRefusesThemOnAnAttributeThatIsNotAString() throws {
        let model = try ObjectModel(json: Data(Self.modelJSON.utf8), path: "folded.json")
        let element = try #require(model.entity(named: "Person")?.fetchIndexes.first?.elements.first)
        #expect(element.caseInsensitive && !element.diacriticInsensitive)
        let reread = try ObjectModel(json: model.jsonRepresentation(), path: "written.json")
        #expect(reread.entity(named: "Person")?.fetchIndexes == model.entity(named: "Person")?.fetchIndexes)
        let wrong = Self.modelJSON.replacingOccurrences(of: #"{"property": "email", "caseInsensitive": true}"#,
                                                        with: #"{"property": "age", "caseInsensitive": true}"#)
        #expect(throws: ModelError.self) { try ObjectModel(json: Data(wrong.utf8), path: "folded.json") }
    }

    @Test func aFoldedIndexAloneAnswersPlainEqualityAndInAndInCaseInsensitiveButNotASort() throws {
        let container = try PersistentContainer.inMemory(model: IndexFixture.model(indexed: true))
        let context = container.viewContext
        for (n, w) in ["Ann", "ann", "ANN", "Bob", "bob", "Émile", "emile", "ß", "SS", "ss"].enumerated() {
            try context.insert("Item", values: ["n": .int(Int64(n)), "w": .string(w)])
        }
        try context.save()
        let store = try #require(container.coordinator.persistentStores.first as? AtomicStore)
        func fetch(_ format: String, sortedBy key: String? = nil) throws -> (ns: [Int64], plan: String) {
            var request = FetchRequest(entityName: "Item", predicate: try GraphCore.Predicate(format: format))
            if let key {
                request.sortDescriptors = [SortDescriptor(key)]
                request.fetchLimit = 3
            }
            let ns = try container.newContext().fetch(request).map { object -> Int64 in try object.get("n") }
            return (key == nil ? ns.sorted() : ns, try store.explain(request).description)
        }
        // Candidates from the folded key, judged exactly.
        #expect(try fetch("w == 'ann'") == ([1], "index byWFolded on w (==), examined 3 objects"))
        #expect(try fetch("w IN {'Bob', 'ss', 'nobody'}") == ([3, 9], "index byWFolded on w (IN), examined 5 objects"))
        #expect(try fetch("w IN[c] {'BOB', 'ss'}") == ([3, 4, 7, 8, 9], "index byWFolded on w (IN[c]), examined 5 objects"))
        #expect(try fetch("w ==[c] 'straSSe'").plan == "index byWFolded on w (==[c]), examined 0 objects")
        // [cd] and [d] fold more than [c]: the [c] index cannot answer them.
        #expect(try fetch("w ==[cd] 'emile'") == ([5, 6], "scan, examined 10 objects"))
        // The folded order is not the order of the strings: a sort by the attribute scans.
        let sorted = try fetch("TRUEPREDICATE", sortedBy: "w")
        #expect(sorted.ns == [2, 0, 3] && sorted.plan == "scan, examined 10 objects")
    }
}
