import Foundation
import Testing
@testable import GraphCore

/// Fetch request options: format predicates, sorting, limits, sub-entities, pending
/// changes, faults, and the other result types (object IDs, counts, dictionaries).
@Suite struct FetchRequestTests {
    private func titles(_ objects: [ManagedObject]) throws -> [String] {
        try objects.map { try $0.get("title") as String }
    }

    private func songs(_ format: String, _ arguments: any PredicateArgument...) throws -> FetchRequest {
        FetchRequest(entityName: "Song", predicate: try GraphCore.Predicate(format: format, arguments: arguments.map(\.predicateValue)))
    }

    @Test func aFormatPredicateSelectsAndSortDescriptorsOrderAcrossRelationships() throws {
        let fixture = try PredicateFixture()
        var request = try songs("plays >= %d AND album != nil", 10)
        request.sortDescriptors = [SortDescriptor("album.artist.name"), SortDescriptor("plays", ascending: false)]
        #expect(try titles(fixture.container.newContext().fetch(request)) == ["Moment's Notice", "Blue Train", "So What", "Blue in Green"])
        request.sortDescriptors = [SortDescriptor("album.title", ascending: false), SortDescriptor("title")]
        #expect(try titles(fixture.container.newContext().fetch(request)) == ["Blue in Green", "So What", "Blue Train", "Moment's Notice"])
    }

    @Test func stringSortsArePlainCaseInsensitiveOrLocalized() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        for title in ["Track 10", "track 9", "e", "f", "é", "Track 9"] { try context.insert("Song", values: ["title": .string(title)]) }
        try context.save()
        func sorted(_ comparison: GraphCore.SortDescriptor.StringComparison, ascending: Bool = true) throws -> [String] {
            try titles(container.newContext().fetch(FetchRequest(entityName: "Song", sortDescriptors: [
                SortDescriptor("title", ascending: ascending, comparison: comparison),
            ])))
        }
        #expect(try sorted(.plain) == ["Track 10", "Track 9", "e", "f", "track 9", "é"])
        #expect(try sorted(.plain, ascending: false) == ["é", "track 9", "f", "e", "Track 9", "Track 10"])
        let insensitiveOrder = try sorted(.caseInsensitive)
        #expect(insensitiveOrder.map { $0.lowercased() } == ["e", "f", "track 10", "track 9", "track 9", "é"], "\(insensitiveOrder)")
        let localized = try sorted(.localized)
        #expect(localized.firstIndex(of: "e")! < localized.firstIndex(of: "é")!)
        #expect(localized.firstIndex(of: "é")! < localized.firstIndex(of: "f")!)
        let standard = try sorted(.localizedStandard)
        #expect(standard.firstIndex(of: "Track 9")! < standard.firstIndex(of: "Track 10")!)
        #expect(standard.firstIndex(of: "é")! < standard.firstIndex(of: "f")!)
        let insensitive = try sorted(.localizedCaseInsensitive)
        #expect(Set(insensitive.suffix(3)) == ["Track 10", "Track 9", "track 9"])
    }

    @Test func limitAndOffsetApplyAfterMergingAndSorting() throws {
        let fixture = try PredicateFixture()
        let context = fixture.container.newContext()
        try context.insert("Song", values: ["title": "Blue Monk", "plays": 40])
        var request = try songs("plays > 5")
        request.sortDescriptors = [SortDescriptor("plays", ascending: false)]
        request.fetchLimit = 2
        #expect(try titles(context.fetch(request)) == ["So What", "Blue Monk"])
        request.fetchOffset = 1
        #expect(try titles(context.fetch(request)) == ["Blue Monk", "Blue in Green"])
        #expect(try context.count(for: request) == 2)
        request.fetchOffset = 4
        #expect(try titles(context.fetch(request)) == ["Blue Train"])
        #expect(try context.count(for: request) == 1)
        #expect(try context.fetchObjectIDs(request).count == 1)
    }

    @Test func subEntitiesAreIncludedUnlessTurnedOff() throws {
        let fixture = try PredicateFixture()
        let context = fixture.container.newContext()
        var request = FetchRequest(entityName: "Animal", predicate: try GraphCore.Predicate(format: "name != nil"))
        #expect(try context.count(for: request) == 4)
        request.includesSubentities = false
        #expect(try context.count(for: request) == 0)
        var cats = FetchRequest(entityName: "Cat", includesSubentities: false)
        cats.sortDescriptors = [SortDescriptor("lives")]
        #expect(try context.fetch(cats).map { try $0.get("name") as String } == ["Felix", "Tom"])
    }

    @Test func pendingChangesCountUnlessTurnedOff() throws {
        let fixture = try PredicateFixture()
        let context = fixture.container.newContext()
        let soWhat = context.object(with: try #require(fixture.objects["So What"]))
        let naima = context.object(with: try #require(fixture.objects["Naïma"]))
        try context.delete(soWhat)
        try naima.set("plays", 99)
        try context.insert("Song", values: ["title": "Blue Monk", "plays": 45])
        var request = try songs("plays > 25")
        request.sortDescriptors = [SortDescriptor("title")]
        #expect(try titles(context.fetch(request)) == ["Blue Monk", "Blue in Green", "Naïma"])
        request.includesPendingChanges = false
        // The store's view: the deleted song is there, the insert is not, Naïma's old plays do not match.
        #expect(try titles(context.fetch(request)) == ["Blue in Green", "So What"])
        #expect(try context.count(for: request) == 2)
    }

    @Test func anUnsavedChangeOfARelatedObjectIsSeen() throws {
        let fixture = try PredicateFixture()
        let context = fixture.container.newContext()
        let album = context.object(with: try #require(fixture.objects["Kind of Blue"]))
        try album.set("title", "Kind of Blue (Legacy)")
        let request = try songs("album.title ENDSWITH %@", "(Legacy)")
        #expect(try titles(context.fetch(request)).sorted() == ["Blue in Green", "So What"])
        #expect(try context.count(for: request) == 2)
        #expect(try fixture.container.newContext().count(for: request) == 0)
    }

    @Test func objectsComeBackAsFaultsWhenAsked() throws {
        let fixture = try PredicateFixture()
        let context = fixture.container.newContext()
        var request = try songs("plays > 25")
        request.returnsObjectsAsFaults = true
        let faults = try context.fetch(request)
        #expect(faults.count == 2)
        #expect(faults.allSatisfy { $0.isFault })
        #expect(try Set(titles(faults)) == ["So What", "Blue in Green"])  // reading fires the faults
        #expect(faults.allSatisfy { !$0.isFault })
        request.returnsObjectsAsFaults = false
        let other = fixture.container.newContext()
        #expect(try other.fetch(request).allSatisfy { !$0.isFault })
    }

    @Test func objectIDsAndCountsMakeNoObjects() throws {
        let fixture = try PredicateFixture()
        let context = fixture.container.newContext()
        let request = try songs("composers.@count > 0 AND NOT title BEGINSWITH 'B'")
        let ids = try context.fetchObjectIDs(request)
        #expect(Set(ids) == Set(["So What", "Moment's Notice", "Naïma"].compactMap { fixture.objects[$0] }))
        #expect(try context.count(for: request) == 3)
        #expect(context.registeredObjects.isEmpty)
        var sorted = request
        sorted.sortDescriptors = [SortDescriptor("plays")]
        #expect(try context.fetchObjectIDs(sorted) == ["Naïma", "Moment's Notice", "So What"].compactMap { fixture.objects[$0] })
    }

    @Test func dictionariesHoldThePropertiesToFetch() throws {
        let fixture = try PredicateFixture()
        let context = fixture.container.newContext()
        var request = try songs("plays <= 10")
        request.sortDescriptors = [SortDescriptor("plays")]
        request.propertiesToFetch = ["title", "album.title", "album.artist.name", "rating"]
        #expect(try context.fetchDictionaries(request) == [
            ["title": "Naïma", "rating": 5.0],
            ["title": "Blue Train", "album.title": "Blue Train", "album.artist.name": "John Coltrane", "rating": 3.5],
        ])
        request.propertiesToFetch = nil
        let all = try context.fetchDictionaries(request)
        #expect(all.first == ["title": "Naïma", "plays": 5, "rating": 5.0, "notes": "Ünïcödé"])
        request.propertiesToFetch = ["album"]
        #expect(try context.fetchDictionaries(request).last == ["album": .object(try #require(fixture.objects["Blue Train album"]))])
        request.propertiesToFetch = ["lyrics"]
        #expect(throws: GraphError.unknownKey(entity: "Song", key: "lyrics")) { try context.fetchDictionaries(request) }
        request.propertiesToFetch = ["composers.name"]
        #expect(throws: GraphError.wrongKind(entity: "Song", key: "composers", expected: "a to-one relationship inside a key path")) {
            try context.fetchDictionaries(request)
        }
    }

    @Test func aChildContextFetchSeesItsOwnAndItsParentsChanges() throws {
        let fixture = try PredicateFixture()
        let parent = fixture.container.newContext()
        try parent.insert("Song", values: ["title": "Parent's", "plays": 70])
        let child = parent.newChildContext()
        try child.insert("Song", values: ["title": "Child's", "plays": 80])
        let request = try songs("plays > 45")
        #expect(try titles(child.fetch(request)).sorted() == ["Child's", "Parent's", "So What"])
        #expect(try titles(parent.fetch(request)).sorted() == ["Parent's", "So What"])
    }

    @Test func aTypedFetchReturnsRegisteredClasses() throws {
        let fixture = try PredicateFixture()
        try fixture.container.coordinator.register(Song.self, forEntity: "Song")
        let songs = try fixture.container.newContext().fetch(try self.songs("title == %@", "So What"), as: Song.self)
        #expect(songs.map(\.title) == ["So What"])
    }
}
