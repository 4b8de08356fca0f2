import Foundation
import Testing
@testable import GraphCore

/// Fetch requests: predicates built in code, key paths, sorting, limits, and the context's
/// unsaved changes.
@Suite struct FetchTests {
    /// Saved songs:
    ///
    /// | title | plays | rating | album (artist) | composers |
    /// |---|---|---|---|---|
    /// | So What | 50 | 4.5 | Kind of Blue (Miles Davis) | Davis |
    /// | Blue in Green | 30 | nil | Kind of Blue (Miles Davis) | Evans, Davis |
    /// | Moment's Notice | 20 | 4 | Blue Train (John Coltrane) | Coltrane |
    /// | Blue Train | 10 | 3.5 | Blue Train (John Coltrane) | Coltrane |
    /// | Naïma | 5 | 5 | – | Coltrane |
    @discardableResult
    static func seed(_ context: ObjectContext) throws -> [String: ManagedObject] {
        var objects: [String: ManagedObject] = [:]
        let davis = try context.insert("Artist", values: ["name": "Miles Davis"])
        let trane = try context.insert("Artist", values: ["name": "John Coltrane"])
        let kob = try context.insert("Album", values: ["title": "Kind of Blue", "artist": .object(davis.objectID)])
        let bt = try context.insert("Album", values: ["title": "Blue Train", "artist": .object(trane.objectID)])
        let composers = try ["Davis", "Evans", "Coltrane"].map { try context.insert("Composer", values: ["name": .string($0)]) }
        let rows: [(String, Int64, Value, ManagedObject?, [Int])] = [
            ("So What", 50, 4.5, kob, [0]),
            ("Blue in Green", 30, nil, kob, [1, 0]),
            ("Moment's Notice", 20, 4.0, bt, [2]),
            ("Blue Train", 10, 3.5, bt, [2]),
            ("Naïma", 5, 5.0, nil, [2]),
        ]
        for (title, plays, rating, album, composerIndexes) in rows {
            let song = try context.insert("Song", values: ["title": .string(title), "plays": .int(plays), "rating": rating])
            try song.setObject(album, forKey: "album")
            try song.setObjects(composerIndexes.map { composers[$0] }, forKey: "composers")
            objects[title] = song
        }
        objects["Kind of Blue"] = kob
        objects["Blue Train album"] = bt
        objects["Davis"] = composers[0]
        try context.save()
        return objects
    }

    private func titles(_ request: FetchRequest, in context: ObjectContext) throws -> [String] {
        try context.fetch(request).map { try $0.get("title") as String }
    }

    /// The titles of the songs matching a predicate, sorted (for predicates, order is not the point).
    private func songs(_ predicate: GraphCore.Predicate, in context: ObjectContext) throws -> [String] {
        try titles(FetchRequest(entityName: "Song", predicate: predicate), in: context).sorted()
    }

    // MARK: - Predicates

    @Test func comparisonOperatorsSelectByValue() throws {
        let container = try MusicModel.container()
        try Self.seed(container.viewContext)
        let context = container.newContext()
        #expect(try songs(.key("plays") == 20, in: context) == ["Moment's Notice"])
        #expect(try songs(.key("plays") != 20, in: context).count == 4)
        #expect(try songs(.key("plays") < 20, in: context) == ["Blue Train", "Naïma"])
        #expect(try songs(.key("plays") <= 20, in: context) == ["Blue Train", "Moment's Notice", "Naïma"])
        #expect(try songs(.key("plays") > 20, in: context) == ["Blue in Green", "So What"])
        #expect(try songs(.key("plays") >= 30, in: context) == ["Blue in Green", "So What"])
        #expect(try songs(.key("title") == "So What", in: context) == ["So What"])
        #expect(try songs(.key("title") < "C", in: context) == ["Blue Train", "Blue in Green"])
    }

    @Test func numbersCompareByValueWhateverTheirType() throws {
        let container = try MusicModel.container()
        try Self.seed(container.viewContext)
        let context = container.newContext()
        #expect(try songs(.key("rating") >= 4, in: context) == ["Moment's Notice", "Naïma", "So What"])
        #expect(try songs(.key("rating") == 4, in: context) == ["Moment's Notice"])
        #expect(try songs(.key("plays") == 50.0, in: context) == ["So What"])
        #expect(try songs(.key("plays") < 10.5, in: context) == ["Blue Train", "Naïma"])
    }

    @Test func nilComparesEqualOnlyToNil() throws {
        let container = try MusicModel.container()
        try Self.seed(container.viewContext)
        let context = container.newContext()
        #expect(try songs(.key("rating") == nil, in: context) == ["Blue in Green"])
        #expect(try songs(.key("rating") != nil, in: context).count == 4)
        // A nil value is neither less nor greater than anything.
        #expect(try !songs(.key("rating") < 10, in: context).contains("Blue in Green"))
        #expect(try songs(.key("album") == nil, in: context) == ["Naïma"])
    }

    @Test func stringOperatorsHonourCaseAndDiacriticOptions() throws {
        let container = try MusicModel.container()
        try Self.seed(container.viewContext)
        let context = container.newContext()
        #expect(try songs(Expression.key("title").beginsWith("Blue"), in: context) == ["Blue Train", "Blue in Green"])
        #expect(try songs(Expression.key("title").beginsWith("blue"), in: context).isEmpty)
        #expect(try songs(Expression.key("title").beginsWith("blue", options: .caseInsensitive), in: context).count == 2)
        #expect(try songs(Expression.key("title").endsWith("Green"), in: context) == ["Blue in Green"])
        #expect(try songs(Expression.key("title").contains("in "), in: context) == ["Blue in Green"])
        #expect(try songs(Expression.key("title").contains("IN G", options: .caseInsensitive), in: context) == ["Blue in Green"])
        #expect(try songs(Expression.key("title").equals("naima", options: [.caseInsensitive, .diacriticInsensitive]), in: context)
            == ["Naïma"])
        #expect(try songs(Expression.key("title").equals("naima", options: .caseInsensitive), in: context).isEmpty)
    }

    @Test func aPredicateChainCanStartWhereAPredicateIsExpected() throws {
        let container = try MusicModel.container()
        try Self.seed(container.viewContext)
        let context = container.newContext()
        var request = FetchRequest(entityName: "Song", predicate: .key("title").beginsWith("Blue"))
        #expect(try context.count(for: request) == 2)
        request.predicate = .key("title").equals("so what", options: .caseInsensitive)
        #expect(try titles(request, in: context) == ["So What"])
        let combined: GraphCore.Predicate = .key("title").contains("Blue") && .key("plays") > 20
        #expect(try songs(combined, in: context) == ["Blue in Green"])
    }

    @Test func andOrNotCombinePredicates() throws {
        let container = try MusicModel.container()
        try Self.seed(container.viewContext)
        let context = container.newContext()
        let blue = Expression.key("title").beginsWith("Blue")
        let popular: GraphCore.Predicate = .key("plays") > 15
        let top: GraphCore.Predicate = .key("plays") == 50
        let unrated: GraphCore.Predicate = .key("rating") == nil
        #expect(try songs(blue && popular, in: context) == ["Blue in Green"])
        #expect(try songs(blue || top, in: context) == ["Blue Train", "Blue in Green", "So What"])
        #expect(try songs(!blue, in: context) == ["Moment's Notice", "Naïma", "So What"])
        #expect(try songs(.and([blue, popular, unrated]), in: context) == ["Blue in Green"])
        #expect(try songs(.or([top, unrated]), in: context) == ["Blue in Green", "So What"])
        #expect(try songs(GraphCore.Predicate.true, in: context).count == 5)
        #expect(try songs(GraphCore.Predicate.false, in: context).isEmpty)
    }

    @Test func keyPathsFollowToOneRelationships() throws {
        let container = try MusicModel.container()
        try Self.seed(container.viewContext)
        let context = container.newContext()
        #expect(try songs(.key("album.title") == "Kind of Blue", in: context) == ["Blue in Green", "So What"])
        #expect(try songs(.key("album.artist.name") == "John Coltrane", in: context) == ["Blue Train", "Moment's Notice"])
        // A song without an album has a nil album title.
        #expect(try songs(.key("album.title") == nil, in: context) == ["Naïma"])
        #expect(try songs(.key("album.title") != "Kind of Blue", in: context) == ["Blue Train", "Moment's Notice", "Naïma"])
    }

    @Test func keyPathsAcrossToManyRelationshipsMatchAnyObject() throws {
        let container = try MusicModel.container()
        try Self.seed(container.viewContext)
        let context = container.newContext()
        #expect(try songs(.key("composers.name") == "Davis", in: context) == ["Blue in Green", "So What"])
        let albums = try context.fetch(FetchRequest(entityName: "Album", predicate: .key("songs.plays") > 40))
        #expect(try albums.map { try $0.get("title") as String } == ["Kind of Blue"])
    }

    @Test func relationshipsCompareWithObjectIDsAndSelf() throws {
        let container = try MusicModel.container()
        let objects = try Self.seed(container.viewContext)
        let context = container.newContext()
        let album = try #require(objects["Kind of Blue"])
        #expect(try songs(.key("album") == .object(album.objectID), in: context) == ["Blue in Green", "So What"])
        let song = try #require(objects["So What"])
        let predicate = GraphCore.Predicate.comparison(Comparison(.evaluatedObject, .equal, .constant(.object(song.objectID))))
        #expect(try songs(predicate, in: context) == ["So What"])
    }

    @Test func anUnknownKeyInAPredicateThrowsNamingEntityAndKey() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        #expect(throws: GraphCore.PredicateError.unknownKey(entity: "Song", key: "lyrics")) {
            try context.fetch(FetchRequest(entityName: "Song", predicate: .key("lyrics") == "x"))
        }
        #expect(throws: GraphCore.PredicateError.unknownKey(entity: "Album", key: "year")) {
            try context.fetch(FetchRequest(entityName: "Song", predicate: .key("album.year") == 1959))
        }
        #expect(throws: GraphCore.PredicateError.self) {
            try context.fetch(FetchRequest(entityName: "Song", predicate: .key("plays.length") == 3))
        }
        #expect(throws: GraphError.unknownEntity("Plant")) { try context.fetch(FetchRequest(entityName: "Plant")) }
    }

    // MARK: - Sorting, limit, offset

    @Test func sortDescriptorsOrderTheResults() throws {
        let container = try MusicModel.container()
        try Self.seed(container.viewContext)
        let context = container.newContext()
        #expect(try titles(FetchRequest(entityName: "Song", sortDescriptors: [SortDescriptor("title")]), in: context)
            == ["Blue Train", "Blue in Green", "Moment's Notice", "Naïma", "So What"])
        #expect(try titles(FetchRequest(entityName: "Song", sortDescriptors: [SortDescriptor("plays", ascending: false)]), in: context)
            == ["So What", "Blue in Green", "Moment's Notice", "Blue Train", "Naïma"])
    }

    @Test func laterSortDescriptorsBreakTies() throws {
        let container = try MusicModel.container()
        try Self.seed(container.viewContext)
        let context = container.newContext()
        let request = FetchRequest(entityName: "Song", sortDescriptors: [
            SortDescriptor("album.title", ascending: false), SortDescriptor("plays"),
        ])
        // nil (no album) sorts first ascending, so last descending.
        #expect(try titles(request, in: context) == ["Blue in Green", "So What", "Blue Train", "Moment's Notice", "Naïma"])
    }

    @Test func nilSortsFirstAscending() throws {
        let container = try MusicModel.container()
        try Self.seed(container.viewContext)
        let context = container.newContext()
        let request = FetchRequest(entityName: "Song", sortDescriptors: [SortDescriptor("rating")])
        #expect(try titles(request, in: context) == ["Blue in Green", "Blue Train", "Moment's Notice", "So What", "Naïma"])
    }

    @Test func aCaseInsensitiveSortIgnoresCase() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        for title in ["beta", "Alpha", "gamma", "Delta"] { try context.insert("Song", values: ["title": .string(title)]) }
        #expect(try titles(FetchRequest(entityName: "Song", sortDescriptors: [SortDescriptor("title")]), in: context)
            == ["Alpha", "Delta", "beta", "gamma"])
        #expect(try titles(FetchRequest(entityName: "Song", sortDescriptors: [SortDescriptor("title", caseInsensitive: true)]), in: context)
            == ["Alpha", "beta", "Delta", "gamma"])
    }

    @Test func sortingByAToManyOrUnknownKeyIsRefused() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        try context.insert("Song", values: ["title": "x"])
        #expect(throws: GraphError.wrongKind(entity: "Song", key: "composers", expected: "an attribute or to-one relationship to sort by")) {
            try context.fetch(FetchRequest(entityName: "Song", sortDescriptors: [SortDescriptor("composers")]))
        }
        #expect(throws: GraphError.unknownKey(entity: "Song", key: "lyrics")) {
            try context.fetch(FetchRequest(entityName: "Song", sortDescriptors: [SortDescriptor("lyrics")]))
        }
    }

    @Test func limitAndOffsetApplyAfterSorting() throws {
        let container = try MusicModel.container()
        try Self.seed(container.viewContext)
        let context = container.newContext()
        var request = FetchRequest(entityName: "Song", sortDescriptors: [SortDescriptor("plays")])
        request.fetchLimit = 2
        #expect(try titles(request, in: context) == ["Naïma", "Blue Train"])
        request.fetchOffset = 2
        #expect(try titles(request, in: context) == ["Moment's Notice", "Blue in Green"])
        request.fetchOffset = 4
        #expect(try titles(request, in: context) == ["So What"])
        request.fetchOffset = 10
        #expect(try titles(request, in: context).isEmpty)
        request.fetchOffset = 0
        request.fetchLimit = 0
        #expect(try titles(request, in: context).count == 5)
    }

    // MARK: - Unsaved changes

    @Test func aFetchSeesUnsavedInserts() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        try Self.seed(context)
        let fresh = try context.insert("Song", values: ["title": "Blue Monk", "plays": 99])
        let request = FetchRequest(entityName: "Song", predicate: .key("plays") > 40, sortDescriptors: [SortDescriptor("plays")])
        let result = try context.fetch(request)
        #expect(try result.map { try $0.get("title") as String } == ["So What", "Blue Monk"])
        #expect(result.last === fresh)
        // Other contexts do not see it.
        #expect(try container.newContext().count(for: request) == 1)
    }

    @Test func aFetchLeavesOutUnsavedDeletes() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let objects = try Self.seed(context)
        try context.delete(try #require(objects["So What"]))
        #expect(try songs(GraphCore.Predicate.true, in: context) == ["Blue Train", "Blue in Green", "Moment's Notice", "Naïma"])
        #expect(try context.count(for: FetchRequest(entityName: "Song")) == 4)
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Song")) == 5)
    }

    @Test func aFetchJudgesUnsavedUpdatesByTheirNewValues() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let objects = try Self.seed(context)
        let naima = try #require(objects["Naïma"])
        let soWhat = try #require(objects["So What"])
        try naima.set("plays", 100)   // now matches
        try soWhat.set("plays", 1)    // no longer matches
        let request = FetchRequest(entityName: "Song", predicate: .key("plays") >= 30, sortDescriptors: [SortDescriptor("plays")])
        #expect(try titles(request, in: context) == ["Blue in Green", "Naïma"])
        // Sorting uses the unsaved values too.
        let all = FetchRequest(entityName: "Song", sortDescriptors: [SortDescriptor("plays")])
        #expect(try titles(all, in: context).first == "So What")
        #expect(try titles(all, in: context).last == "Naïma")
    }

    @Test func aFetchSeesUnsavedRelationshipChangesOfTheFetchedObjects() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let objects = try Self.seed(context)
        let naima = try #require(objects["Naïma"])
        try naima.setObject(objects["Blue Train album"], forKey: "album")
        #expect(try songs(.key("album.title") == "Blue Train", in: context) == ["Blue Train", "Moment's Notice", "Naïma"])
        #expect(try songs(.key("album") == nil, in: context).isEmpty)
    }

    @Test func countForARequestCountsUnsavedChangesAndHonoursThePredicate() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let objects = try Self.seed(context)
        #expect(try context.count(for: FetchRequest(entityName: "Song")) == 5)
        #expect(try context.count(for: FetchRequest(entityName: "Song", predicate: .key("album.title") == "Blue Train")) == 2)
        try context.insert("Song", values: ["title": "Blue Monk"])
        try context.delete(try #require(objects["So What"]))
        #expect(try context.count(for: FetchRequest(entityName: "Song")) == 5)
        #expect(try context.count(for: FetchRequest(entityName: "Song", predicate: Expression.key("title").beginsWith("Blue"))) == 3)
        #expect(try context.count(for: FetchRequest(entityName: "Artist")) == 2)
    }

    @Test func fetchedObjectsAreTheContextsRegisteredObjects() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let objects = try Self.seed(context)
        let soWhat = try #require(objects["So What"])
        let fetched = try context.fetch(FetchRequest(entityName: "Song", predicate: .key("title") == "So What"))
        #expect(fetched.count == 1)
        #expect(fetched.first === soWhat)
    }

    // MARK: - Sub-entities

    @Test func aFetchOfAnAbstractEntityReturnsItsSubEntitiesObjects() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let rex = try context.insert("Dog", values: ["name": "Rex"])
        let tom = try context.insert("Cat", values: ["name": "Tom"])
        try context.save()
        let felix = try context.insert("Cat", values: ["name": "Felix"])

        let all = try context.fetch(FetchRequest(entityName: "Animal", sortDescriptors: [SortDescriptor("name")]))
        #expect(all == [felix, rex, tom])
        #expect(try context.count(for: FetchRequest(entityName: "Animal")) == 3)
        let own = try context.fetch(FetchRequest(entityName: "Animal", includesSubentities: false))
        #expect(own.isEmpty)
        let cats = try context.fetch(FetchRequest(entityName: "Cat", includesSubentities: false))
        #expect(Set(cats) == [tom, felix])
    }
}
