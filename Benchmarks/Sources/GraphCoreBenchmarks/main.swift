import Foundation
import BenchmarkSupport
import GraphCore
#if canImport(Glibc)
import Glibc

/// glibc's malloc_trim (malloc.h is not part of the Glibc module).
@_silgen_name("malloc_trim") func malloc_trim(_ pad: Int) -> Int32
#endif

// GraphCore benchmark: insert N objects (4 attributes, one to-one relationship each) into an
// in-memory store and save; fetch them all into a fresh context; resident memory per object.
//
//   swift run -c release --package-path Benchmarks GraphCoreBenchmarks [N]
//
// Predicates (parse time; fetch with a predicate, sorted, from N songs):
//
//   swift run -c release --package-path Benchmarks GraphCoreBenchmarks predicates [N]
//
// Indexes (indexed equality, top 20 by an index, a 1 % range in index order, load and saves
// with and without two indexes, on N songs):
//
//   swift run -c release --package-path Benchmarks GraphCoreBenchmarks indexes [N]

// The same two indexes on a real JSON store file: loads in fresh processes, durable saves:
//
//   swift run -c release --package-path Benchmarks GraphCoreBenchmarks json-indexes [N] [rounds] [saveBlocks]

if CommandLine.arguments.dropFirst().first == "json-load", CommandLine.arguments.count >= 4 {
    try JSONIndexLoadBenchmark.childLoad(CommandLine.arguments[2], indexed: CommandLine.arguments[3] == "1")
}

// A store file for timing `json-load` alone (e.g. under `perf stat`): json-generate N path
if CommandLine.arguments.dropFirst().first == "json-generate", CommandLine.arguments.count >= 4, let count = Int(CommandLine.arguments[2]) {
    try JSONIndexLoadBenchmark.generate(count, at: CommandLine.arguments[3])
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "json-indexes" {
    try JSONIndexLoadBenchmark.run(count: CommandLine.arguments.dropFirst(2).first.flatMap(Int.init) ?? 1_000_000,
                                   rounds: max(0, CommandLine.arguments.dropFirst(3).first.flatMap(Int.init) ?? 5),
                                   saveBlocks: min(10_000, max(1, CommandLine.arguments.dropFirst(4).first.flatMap(Int.init) ?? 8)))
    exit(0)
}

// The CPU time two indexes add to saves, without a disk (caches flushed before each save
// unless the third argument is "warm"; each write sleeping writeMicroseconds, 0 by default):
//
//   swift run -c release --package-path Benchmarks GraphCoreBenchmarks index-saves [N] [saves] [warm|cold] [writeMicroseconds]
if CommandLine.arguments.dropFirst().first == "index-saves" {
    try IndexSaveBenchmark.run(count: CommandLine.arguments.dropFirst(2).first.flatMap(Int.init) ?? 1_000_000,
                               saves: CommandLine.arguments.dropFirst(3).first.flatMap(Int.init) ?? 400,
                               cold: CommandLine.arguments.dropFirst(4).first != "warm",
                               writeMicroseconds: CommandLine.arguments.dropFirst(5).first.flatMap(UInt32.init) ?? 0)
    exit(0)
}

if CommandLine.arguments.dropFirst().first == "indexes" {
    try IndexBenchmark.run(count: CommandLine.arguments.dropFirst(2).first.flatMap(Int.init) ?? 1_000_000)
    exit(0)
}

if CommandLine.arguments.dropFirst().first == "predicates" {
    try PredicateBenchmark.run(count: CommandLine.arguments.dropFirst(2).first.flatMap(Int.init) ?? 1_000_000)
    exit(0)
}

let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 1_000_000

/// Resident memory in bytes, after giving freed heap pages back to the system.
func residentBytes() -> Int {
    #if canImport(Glibc)
    _ = malloc_trim(0)
    #endif
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func mb(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }

let model = try PersonModel.make()

print("GraphCore benchmark: \(count) objects of entity Person (4 attributes: string, int64, double, date; one to-one relationship), InMemory store, release build")

let coordinator = StoreCoordinator(model: model)
try coordinator.addPersistentStore(type: "InMemory")
let baseline = residentBytes()
let epoch = Date(timeIntervalSince1970: 1_700_000_000)

var insertSeconds = 0.0
var saveSeconds = 0.0
do {
    let context = ObjectContext(coordinator: coordinator)
    insertSeconds = try seconds {
        var previous: ManagedObject?
        for i in 0..<count {
            let person = try context.insert("Person")
            try person.setValue(.string("person \(i)"), forKey: "name")
            try person.setValue(.int(Int64(i)), forKey: "serial")
            try person.setValue(.double(Double(i) * 0.5), forKey: "score")
            try person.setValue(.date(epoch.addingTimeInterval(Double(i))), forKey: "born")
            if let partner = previous {
                try person.setObject(partner, forKey: "partner")
                previous = nil
            } else {
                previous = person
            }
        }
    }
    saveSeconds = try seconds { try context.save() }
    let afterSave = residentBytes()
    print(String(format: "insert %d objects:                 %.3f s (%.0f objects/s)", count, insertSeconds, Double(count) / insertSeconds))
    print(String(format: "save %d objects:                   %.3f s", count, saveSeconds))
    print(String(format: "insert + save:                      %.3f s (target < 3 s)", insertSeconds + saveSeconds))
    print("resident after save (store + saving context):   \(mb(afterSave - baseline)), \((afterSave - baseline) / count) bytes/object")
}
let afterContextGone = residentBytes()
print("resident with the store alone:                  \(mb(afterContextGone - baseline)), \((afterContextGone - baseline) / count) bytes/object")

let reader = ObjectContext(coordinator: coordinator)
var fetched: [ManagedObject] = []
let fetchSeconds = try seconds {
    fetched = try reader.fetch(FetchRequest(entityName: "Person"))
}
precondition(fetched.count == count, "fetched \(fetched.count) of \(count)")
let afterFetch = residentBytes()
print(String(format: "fetch all %d objects:              %.3f s (target < 3 s)", count, fetchSeconds))
print("resident with store + fetched objects:          \(mb(afterFetch - baseline)), \((afterFetch - baseline) / count) bytes/object (target < 400)")

// Read one attribute of every fetched object, to show the values are really there.
var total = 0.0
let readSeconds = try seconds {
    for object in fetched { if case .double(let d) = try object.value(forKey: "score") { total += d } }
}
print(String(format: "read one attribute of each:         %.3f s (checksum %.1f)", readSeconds, total))
