import Foundation
import BenchmarkSupport
import GraphCore

/// What the two indexes of ``IndexBenchmark`` add to a save's CPU time, without a disk: N songs
/// in an in-memory atomic store with and without the indexes, then `saves` saves of 100 new
/// songs into each (alternated in blocks of 10), the caches flushed before each save as a
/// durable save's wait for the disk and the other work of a server leave them (`cold`), or not.
/// The time of a save is its thread's CPU time plus what other threads (the index upkeep's
/// worker) spent meanwhile: the process's CPU time. With `writeMicroseconds`, each save's write
/// sleeps that long (a slow disk's wait, the CPU idle), which the index upkeep may overlap.
///
///   swift run -c release --package-path Benchmarks GraphCoreBenchmarks index-saves [N] [saves] [warm|cold] [writeMicroseconds]
enum IndexSaveBenchmark {
    static func run(count: Int, saves: Int, cold: Bool, writeMicroseconds: UInt32) throws {
        print("Index upkeep of saves: \(count) songs, \(saves) saves of 100 inserted songs with and without the indexes byKey "
              + "and byPlays, caches \(cold ? "flushed before each save" : "warm"), each write waiting \(writeMicroseconds) µs")
        PreparedSongStore.writeMicroseconds = writeMicroseconds
        var rng = SystemRandomNumberGenerator()
        PreparedSongStore.rows = (0..<count).map { n in
            [.string("key \(n % max(1, count / 5))"), .string("song \(n)"), .int(Int64.random(in: 0..<Int64(max(1, count)), using: &rng)),
             .double(Double(n % 100) / 10)]
        }
        StoreRegistry.register(PreparedSongStore.self, as: "PreparedSongs")
        let coordinators = try [false, true].map { indexed in
            let coordinator = StoreCoordinator(model: try IndexBenchmark.model(indexed: indexed))
            _ = try coordinator.addPersistentStore(type: "PreparedSongs")
            return coordinator
        }
        // Larger than the last-level cache: reading it evicts the indexes' leaves.
        var flush = [UInt8](repeating: 1, count: 64 << 20)
        var sink = 0
        var cpu: [Bool: Double] = [:], wall: [Bool: Double] = [:]
        var next = count
        for block in 0..<max(1, saves / 10) {
            for indexed in block % 2 == 0 ? [false, true] : [true, false] {
                let context = ObjectContext(coordinator: coordinators[indexed ? 1 : 0])
                for _ in 0..<10 {
                    for _ in 0..<100 {
                        next += 1
                        try context.insert("Song", values: ["key": .string("new \(next)"), "title": .string("song \(next)"),
                                                            "plays": .int(Int64.random(in: 0..<Int64(max(1, count)), using: &rng)),
                                                            "rating": 1.5])
                    }
                    if cold {
                        flush.withUnsafeMutableBufferPointer { bytes in
                            for offset in stride(from: 0, to: bytes.count, by: 64) { bytes[offset] &+= 1; sink &+= Int(bytes[offset]) }
                        }
                    }
                    let startCPU = JSONIndexLoadBenchmark.processCPUSeconds()
                    wall[indexed, default: 0] += try IndexBenchmark.nanos { try context.save() } / 1e9
                    cpu[indexed, default: 0] += JSONIndexLoadBenchmark.processCPUSeconds() - startCPU
                    context.reset()
                }
            }
        }
        let inserts = Double(max(1, saves / 10) * 10 * 100)  // songs saved into the store with the indexes
        print(String(format: "saves without indexes: %.3f s wall, %.3f s CPU; with 2 indexes: %.3f s wall, %.3f s CPU "
                     + "(%.2f x wall, %.2f x CPU; %.2f µs CPU more per inserted song, both indexes) [%d]",
                     wall[false] ?? 0, cpu[false] ?? 0, wall[true] ?? 0, cpu[true] ?? 0,
                     (wall[true] ?? 0) / (wall[false] ?? 1), (cpu[true] ?? 0) / (cpu[false] ?? 1),
                     ((cpu[true] ?? 0) - (cpu[false] ?? 0)) / inserts * 1e6, sink & 1))
    }
}
