import BenchmarkSupport
import DocumentClient
import Foundation
import GraphCore

/// The whole run (see main.swift): a server on a new store, the Songs inserted through a
/// RemoteStore, then each figure on fresh coordinators.
final class RemoteStoreBenchmark {
    let options: RemoteBenchmarkOptions
    let repository: URL
    let modelURL: URL
    let model: ObjectModel
    /// The store file, the server's log; removed at the end.
    let directory: URL
    private var server: DocServer?
    private var serverURL: URL?
    private var meter = Meter(serverPID: 0)

    init(options: RemoteBenchmarkOptions) throws {
        self.options = options
        repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        modelURL = repository.appendingPathComponent("Sources/docserver/Resources/sample.model.json")
        model = try ObjectModel(contentsOf: modelURL)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("remote-store-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        RemoteStore.register()
    }

    func run() throws {
        // The newest release docserver; else one built in this benchmark package's build directory,
        // whose release build of the main package's libraries it shares.
        let binary = try DocServerBinary.locate(explicit: options.docserver, repository: repository,
                                                candidates: [".build/release/docserver", ".build-bench/release/docserver", "Benchmarks/.build/release/docserver"],
                                                build: ["build", "-c", "release", "--package-path", "Benchmarks", "--product", "docserver"],
                                                built: "Benchmarks/.build/release/docserver")
        printHeader(binary: binary)
        let storeFile = directory.appendingPathComponent("store.json")
        let server = try DocServer(binary: binary, model: modelURL, store: storeFile, log: directory.appendingPathComponent("docserver.log"),
                                   arguments: ["--log-level", "warning"], timeout: 60)
        self.server = server
        serverURL = server.url
        meter = Meter(serverPID: server.processIdentifier)
        let shape = try insertSongs()
        say("data: \(shape); server's store file \(bytesDescription(fileSize(storeFile)))")
        say("each figure: a fresh coordinator + RemoteStore + context per run (nothing cached; the store's connect + hello"
            + " before the timed part, not counted), median of \(options.runs) run\(options.runs == 1 ? "" : "s") by time;"
            + " round trips = requests the store's client sent, received = bytes of answers")
        say()
        try measureFigures(shape: shape)
        say()
        say("docserver: \(server.stop())")
    }

    func cleanUp() {
        if let server { _ = server.stop() }
        try? FileManager.default.removeItem(at: directory)
    }

    private func printHeader(binary: String) {
        let commit = (try? runProgram("/usr/bin/env", ["git", "-C", repository.path, "log", "-1", "--format=%h %s"], quiet: true))?.output
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
        say("RemoteStore benchmark (release build), \(ProcessInfo.processInfo.activeProcessorCount) cores, load average \(load), \(Date())")
        say("repository: \(repository.path) at \(commit)")
        let built = (try? FileManager.default.attributesOfItem(atPath: binary))?[.modificationDate] as? Date
        say("docserver: \(binary) (built \(built.map { "\($0)" } ?? "?")), serve --model sample.model.json on 127.0.0.1, client and server on the same machine")
    }

    // MARK: - Data

    struct Shape: CustomStringConvertible {
        let songs, albums, artists: Int
        let saves: Int
        let insert: Sample
        var description: String {
            "\(grouped(songs)) Songs (title, plays, rating; each in one of \(grouped(albums)) Albums by \(grouped(artists)) Artists),"
                + " inserted through a RemoteStore context in \(saves) saves: \(fixed(insert.seconds, 2)) s, \(grouped(insert.requests)) round trips"
        }
    }

    /// Inserts the Artists, Albums and Songs in saves of at most 2,500 Songs.
    private func insertSongs() throws -> Shape {
        let songs = options.objects
        let albums = max(songs / 100, 1), artists = max(albums / 10, 1)
        let perSave = 2_500
        var saves = 0
        let sample = try withFreshStore(prefetch: 100) { context, store in
            try meter.measure(store) {
                var artistObjects: [ManagedObject] = []
                for index in 0..<artists {
                    artistObjects.append(try context.insert("Artist", values: ["name": .string("Artist \(index)"), "country": "FR"]))
                }
                var albumObjects: [ManagedObject] = []
                for index in 0..<albums {
                    let album = try context.insert("Album", values: ["title": .string("Album \(index)")])
                    try album.setObject(artistObjects[index % artists], forKey: "artist")
                    albumObjects.append(album)
                }
                for index in 0..<songs {
                    let song = try context.insert("Song", values: [
                        "title": .string("Song \(index)"), "plays": .int(Int64(index)), "rating": .double(Double(index % 50) / 10),
                    ])
                    try song.setObject(albumObjects[index % albums], forKey: "album")
                    if (index + 1) % perSave == 0 || index == songs - 1 {
                        try context.save()
                        saves += 1
                    }
                }
            }
        }
        return Shape(songs: songs, albums: albums, artists: artists, saves: saves, insert: sample)
    }

    // MARK: - Figures

    private func measureFigures(shape: Shape) throws {
        var figures: [Figure] = []
        func add(_ new: [Figure]) {
            for figure in new { say("  measured \(figure.label): \(figure.time(figure.median.seconds))") }
            figures += new
        }
        if options.only == nil { add([try openFigure()]) }
        if options.measures("a") { add([try loadFigure(songs: shape.songs)]) }
        for (letter, prefetch) in [("b", 100), ("c", 1_000), ("d", 1)] where options.measures(Character(letter)) {
            add([try faultFigure(letter, prefetch: prefetch, songs: shape.songs)])
        }
        if options.measures("e") { add(try countAndTopFigures(songs: shape.songs)) }
        var refresh: (load: Figure, refresh: Figure)?
        if options.measures("f") {
            let figures = try refreshFigures(songs: shape.songs)
            add([figures.load, figures.refresh])
            refresh = figures
        }

        say()
        printTable(figures)
        if let refresh {
            let firstLoad = refresh.load.median, again = refresh.refresh.median
            say()
            say("f) refreshing \(grouped(shape.songs)) unchanged Songs took \(grouped(again.requests)) round trips and received \(bytesDescription(again.bytes)),"
                + " \(fixed(Double(again.bytes) / Double(max(firstLoad.bytes, 1)) * 100, 1)) % of the first load's \(bytesDescription(firstLoad.bytes))"
                + " in \(grouped(firstLoad.requests)) round trip\(firstLoad.requests == 1 ? "" : "s"); \(grouped(again.bytes / max(again.requests, 1))) B per round trip"
                + " (`get` sends the version the store holds: an unchanged object comes back without its values)")
        }
    }

    /// Adding a RemoteStore to a coordinator: connect and `hello`.
    private func openFigure() throws -> Figure {
        Figure(label: "open a RemoteStore (connect + hello)", runs: try (0..<options.runs).map { _ in
            let coordinator = StoreCoordinator(model: model)
            let start = ContinuousClock.now
            let added = try coordinator.addPersistentStore(type: RemoteStore.storeType, at: serverURL)
            let elapsed = ContinuousClock.now - start
            defer { coordinator.remove(added) }
            let statistics = (added as? RemoteStore)?.client.statistics
            return Sample(seconds: seconds(elapsed), requests: statistics?.requests ?? 0, bytes: statistics?.bytesReceived ?? 0)
        }, inMilliseconds: true)
    }

    /// a) Every Song with its values in one `fetch`, then each title read.
    private func loadFigure(songs: Int) throws -> Figure {
        Figure(label: "a) fetch \(grouped(songs)) Songs with values, read title of each", runs: try runs { context, store in
            try meter.measure(store) { try readTitles(try context.fetch(FetchRequest(entityName: "Song")), expected: songs) }
        }, objects: songs)
    }

    /// b), c), d) Every Song as a fault, then each title read: each fault that goes to the
    /// server loads `prefetch` objects.
    private func faultFigure(_ letter: String, prefetch: Int, songs: Int) throws -> Figure {
        var request = FetchRequest(entityName: "Song")
        request.returnsObjectsAsFaults = true
        let batching = prefetch == 1 ? "no batching" : "batched"
        return Figure(label: "\(letter)) fetch as faults, read title of each: prefetch \(grouped(prefetch)) (\(batching))",
                      runs: try runs(prefetch: prefetch) { context, store in
            try meter.measure(store) { try readTitles(try context.fetch(request), expected: songs) }
        }, objects: songs)
    }

    /// e) `count(for:)` of every Song; the 20 most played Songs (sorted and limited by the server).
    private func countAndTopFigures(songs: Int) throws -> [Figure] {
        let count = Figure(label: "e) count(for:) of all Songs", runs: try runs { context, store in
            try meter.measure(store) {
                let count = try context.count(for: FetchRequest(entityName: "Song"))
                guard count == songs else { throw BenchmarkError("count(for:) answered \(count), not \(songs)") }
            }
        }, inMilliseconds: true)
        var top = FetchRequest(entityName: "Song", sortDescriptors: [SortDescriptor("plays", ascending: false)])
        top.fetchLimit = 20
        let first = Figure(label: "e) fetch the 20 most played Songs (sorted, fetchLimit 20), read title", runs: try runs { context, store in
            try meter.measure(store) {
                let found = try context.fetch(top)
                try readTitles(found, expected: 20)
                guard try found.first?.get("plays", as: Int64.self) == Int64(songs - 1) else {
                    throw BenchmarkError("the most played Song is not the one with plays \(songs - 1)")
                }
            }
        }, inMilliseconds: true)
        return [count, first]
    }

    /// f) Every Song loaded with its values; then each refreshed (its values dropped) and its
    /// title read again: a `get` with the version the store holds.
    private func refreshFigures(songs: Int) throws -> (load: Figure, refresh: Figure) {
        var loads: [Sample] = []
        let refreshes = try runs { context, store in
            var objects: [ManagedObject] = []
            loads.append(try meter.measure(store) {
                objects = try context.fetch(FetchRequest(entityName: "Song"))
                try readTitles(objects, expected: songs)
            })
            return try meter.measure(store) {
                for object in objects { try context.refresh(object, mergeChanges: false) }
                try readTitles(objects, expected: songs)
            }
        }
        return (Figure(label: "f) first load: fetch \(grouped(songs)) Songs with values, read title", runs: loads, objects: songs),
                Figure(label: "f) then refresh each (mergeChanges: false), read title again", runs: refreshes, objects: songs))
    }

    private func printTable(_ figures: [Figure]) {
        let width = max(figures.map(\.label.count).max() ?? 0, 10)
        let runsWidth = max(figures.map(\.runsText.count).max() ?? 0, 4)
        say("figure".padded(width) + "  " + "round trips".padded(11, right: true) + "  " + "received".padded(9, right: true)
            + "  " + "median".padded(9, right: true) + "  " + "CPU client".padded(10, right: true) + "  " + "CPU server".padded(10, right: true)
            + "  " + "objects/s".padded(9, right: true) + "  " + "runs")
        for figure in figures {
            let median = figure.median
            say(figure.label.padded(width) + "  " + figure.requestsText.padded(11, right: true) + "  " + figure.bytesText.padded(9, right: true)
                + "  " + figure.time(median.seconds).padded(9, right: true) + "  " + (median.clientCPU.map(figure.time) ?? "-").padded(10, right: true)
                + "  " + (median.serverCPU.map(figure.time) ?? "-").padded(10, right: true) + "  " + figure.rateText.padded(9, right: true)
                + "  " + figure.runsText.padded(runsWidth))
        }
        say("(median: the median run by wall-clock time, with its round trips, bytes and CPU; CPU client: this process, all threads;"
            + " CPU server: the docserver process, in 10 ms ticks; runs: every run's wall-clock time)")
    }

    // MARK: - Helpers

    /// One sample per run, each measured by `body` on a fresh store.
    private func runs(prefetch: Int = 100, _ body: (ObjectContext, RemoteStore) throws -> Sample) throws -> [Sample] {
        try (0..<options.runs).map { _ in try withFreshStore(prefetch: prefetch, body) }
    }

    /// Runs `body` with a context on a new coordinator whose RemoteStore has this prefetch,
    /// then removes the store (closing its connection).
    private func withFreshStore<T>(prefetch: Int, _ body: (ObjectContext, RemoteStore) throws -> T) throws -> T {
        let coordinator = StoreCoordinator(model: model)
        let added = try coordinator.addPersistentStore(type: RemoteStore.storeType, at: serverURL,
                                                       options: StoreOptions(values: [RemoteStoreOptions.prefetch: String(prefetch)]))
        defer { coordinator.remove(added) }
        guard let store = added as? RemoteStore else { throw BenchmarkError("the DocumentServer store is not a RemoteStore") }
        return try body(ObjectContext(coordinator: coordinator), store)
    }

    /// Reads `title` of every object, checking that there are `expected` of them and that
    /// each is loaded afterwards.
    private func readTitles(_ objects: [ManagedObject], expected: Int) throws {
        guard objects.count == expected else { throw BenchmarkError("fetched \(objects.count) objects, not \(expected)") }
        var characters = 0
        for object in objects { characters += try object.get("title", as: String.self).utf8.count }
        guard characters > 0, !objects.contains(where: \.isFault) else { throw BenchmarkError("titles were not loaded") }
    }
}
