import Foundation
import GraphCore

/// Predicate benchmark: parse time of a format string, and a fetch with it, sorted, from
/// an in-memory store of `count` songs.
///
///   swift run -c release --package-path Benchmarks GraphCoreBenchmarks predicates [N]
enum PredicateBenchmark {
    static let format = #"title BEGINSWITH[c] $p AND (plays > 10 OR album.artist.name == "X")"#
    /// A predicate with the expression forms of NSExpression: `%K` inside key paths, arithmetic,
    /// bitwise operators, functions and a subquery.
    static let expressionFormat = #"(flags & %d) != 0 AND sqrt(x * x + y * y) < %f AND SUBQUERY(%K, $s, $s.%K >= %lu).@count == 0"#
    static let expressionArguments: [PredicateValue] = [4, 10.0, "songs", "plays", 25]
    static let words = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliett",
                        "Kilo", "Lima", "Mike", "November", "Oscar", "Papa", "Quebec", "Romeo", "Sierra", "Tango",
                        "Uniform", "Victor", "Whiskey", "Xray", "Yankee", "Zulu"]

    static func run(count: Int) throws {
        print("GraphCore predicate benchmark, release build")
        try parse()
        try fetch(count: count)
    }

    static func nanoseconds(_ body: () throws -> Void) rethrows -> UInt64 {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return DispatchTime.now().uptimeNanoseconds - start
    }

    static func parse() throws {
        try parse(format, arguments: [])
        try parse(expressionFormat, arguments: expressionArguments)
        try cachedParse("plays == %d", arguments: { [.value(.int(Int64($0)))] })
        try cachedParse("title BEGINSWITH[c] %@ AND plays > %d AND album.title IN %@",
                        arguments: { [.value(.string("t\($0 % 100)")), .value(.int(Int64($0))), .array([.value(.string("a")), .value(.string("b"))])] })
    }

    /// A format parsed each time against the same format through a ``PredicateCache`` (a
    /// server's fetches: the format parsed once, each request's arguments bound into it),
    /// with new arguments every time, alternated.
    static func cachedParse(_ format: String, arguments: (Int) -> [PredicateValue]) throws {
        let samples = 20_000
        let cache = PredicateCache(model: nil)
        var parsedTimes: [UInt64] = [], cachedTimes: [UInt64] = []
        var same = true
        for n in 0..<(samples + 1000) {
            let values = arguments(n)
            var parsed: GraphCore.Predicate = .true, cached: GraphCore.Predicate = .false
            let parseTime = try nanoseconds { parsed = try GraphCore.Predicate(format: format, arguments: values) }
            let cacheTime = try nanoseconds { cached = try cache.predicate(format: format, arguments: values) }
            same = same && parsed == cached
            if n >= 1000 {
                parsedTimes.append(parseTime)
                cachedTimes.append(cacheTime)
            }
        }
        parsedTimes.sort()
        cachedTimes.sort()
        func us(_ ns: UInt64) -> String { String(format: "%.2f µs", Double(ns) / 1000) }
        print("\(format.count)-character format with new arguments: parsed median \(us(parsedTimes[samples / 2])), "
              + "through a PredicateCache median \(us(cachedTimes[samples / 2])) (p90 \(us(parsedTimes[samples * 9 / 10])) / "
              + "\(us(cachedTimes[samples * 9 / 10])); \(samples) each, alternated; the same predicates: \(same))")
    }

    static func parse(_ format: String, arguments: [PredicateValue]) throws {
        let samples = 20_000
        var times: [UInt64] = []
        times.reserveCapacity(samples)
        var parsed: GraphCore.Predicate = .true
        for _ in 0..<1000 { parsed = try GraphCore.Predicate(format: format, arguments: arguments) }  // warm up
        for _ in 0..<samples {
            times.append(try nanoseconds { parsed = try GraphCore.Predicate(format: format, arguments: arguments) })
        }
        times.sort()
        func us(_ ns: UInt64) -> String { String(format: "%.2f µs", Double(ns) / 1000) }
        print("parse \(format.count)-character predicate: median \(us(times[samples / 2])), "
              + "p10 \(us(times[samples / 10])), p90 \(us(times[samples * 9 / 10])), min \(us(times[0])) "
              + "over \(samples) parses (target < 20 µs)")
        print("  parsed as: \(parsed)")
    }

    static func fetch(count: Int) throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Song", attributes: [
                AttributeDescription("title", .string),
                AttributeDescription("plays", .int64),
            ], relationships: [
                RelationshipDescription("album", destination: "Album", inverse: "songs"),
            ]),
            EntityDescription("Album", attributes: [AttributeDescription("title", .string)], relationships: [
                RelationshipDescription("songs", destination: "Song", inverse: "album", toMany: true),
                RelationshipDescription("artist", destination: "Artist", inverse: "albums"),
            ]),
            EntityDescription("Artist", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("albums", destination: "Album", inverse: "artist", toMany: true),
            ]),
        ])
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: "InMemory")
        let albumCount = max(1, count / 1000)
        let artistCount = max(1, albumCount / 10)
        let loadSeconds = Double(try nanoseconds {
            let context = ObjectContext(coordinator: coordinator)
            let artists = try (0..<artistCount).map { i in
                try context.insert("Artist", values: ["name": .string(i == 0 ? "X" : "Artist \(i)")])
            }
            let albums = try (0..<albumCount).map { i in
                try context.insert("Album", values: ["title": .string("Album \(i)"), "artist": .object(artists[i % artistCount].objectID)])
            }
            for i in 0..<count {
                let song = try context.insert("Song")
                // A title word by a scrambled index, so that the store's order is not the sorted order.
                let scrambled = (i &* 7919) % count
                try song.setValue(.string("\(words[scrambled % words.count]) \(scrambled)"), forKey: "title")
                try song.setValue(.int(Int64(i % 100)), forKey: "plays")
                try song.setValue(.object(albums[i % albumCount].objectID), forKey: "album")
            }
            try context.save()
        }) / 1e9
        print(String(format: "store: %d songs (title, plays, album), %d albums, %d artists, made and saved in %.1f s",
                     count, albumCount, artistCount, loadSeconds))

        let template = try GraphCore.Predicate(format: format)
        for prefix in ["br", "b", ""] {
            var request = FetchRequest(entityName: "Song")
            request.predicate = template.withSubstitutionVariables(["p": .value(.string(prefix))])
            request.sortDescriptors = [SortDescriptor("title")]
            var best = Double.infinity
            var all: [Double] = []
            var found = 0
            for _ in 0..<5 {
                let context = ObjectContext(coordinator: coordinator)  // nothing registered yet
                let seconds = Double(try nanoseconds { found = try context.fetch(request).count }) / 1e9
                best = min(best, seconds)
                all.append(seconds)
            }
            all.sort()
            print(String(format: "fetch %@ sorted by title from %d songs: %d objects, best %.3f s, median %.3f s of 5 (target < 1 s)",
                         "$p = \"\(prefix)\"", count, found, best, all[2]))
            var unsorted = request
            unsorted.sortDescriptors = []
            var unsortedBest = Double.infinity
            for _ in 0..<5 {
                let context = ObjectContext(coordinator: coordinator)
                unsortedBest = min(unsortedBest, Double(try nanoseconds { found = try context.fetch(unsorted).count }) / 1e9)
            }
            print(String(format: "  the same unsorted: best %.3f s of 5", unsortedBest))
            var countBest = Double.infinity
            var counted = 0
            for _ in 0..<5 {
                let context = ObjectContext(coordinator: coordinator)
                countBest = min(countBest, Double(try nanoseconds { counted = try context.count(for: request) }) / 1e9)
            }
            print(String(format: "  count(for:) of the same: %d, best %.3f s of 5", counted, countBest))
            // The same with a deadline, as docserver sets one on every fetch (its --request-time-limit).
            var watched = request
            var watchedBest = Double.infinity
            for _ in 0..<5 {
                watched.deadline = .now + .seconds(10)
                let context = ObjectContext(coordinator: coordinator)
                watchedBest = min(watchedBest, Double(try nanoseconds { counted = try context.count(for: watched) }) / 1e9)
            }
            print(String(format: "  count(for:) of the same with a deadline 10 s ahead: %d, best %.3f s of 5", counted, watchedBest))
        }
    }
}
