import Foundation
import GraphCore
import JSONAtomicStore
import ServerTestSupport
import Testing

/// A process saving in a loop is killed with SIGKILL at random moments; after each kill the
/// store must open, be valid, and hold every save that had returned (FILE_FORMAT.md,
/// "Writing a store file safely").
@Suite("Crash safety")
struct CrashTests {
    static let kills = 200
    static let fillers = 2000

    @Test("a store killed at random moments while saving keeps every save that returned")
    func killedWriterLosesNoAcknowledgedSave() throws {
        let directory = try TemporaryDirectory()
        let storeURL = directory.url.appendingPathComponent("crash.json")
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        var acknowledged: Int64 = -1  // the highest sequence number whose save returned
        var roundsWithSave = 0

        for round in 0..<Self.kills {
            var writer = try CrashWriterProcess(model: CrashFiles.model, store: storeURL, fillers: Self.fillers)
            // Every tenth round is killed while it is still opening the store.
            if round % 10 != 9 {
                let ready = try writer.readLine()
                let next = Int64(ready.dropFirst("ready ".count)) ?? -99
                #expect(next == acknowledged + 1 || next == acknowledged + 2,
                        "round \(round), seed \(seed): writer resumed at \(ready), last acknowledged \(acknowledged)")
                // Not vacuous, whatever the machine's load: every other round is killed only
                // after one of its own saves returned, so the run covers at least that many saves
                // (and the other rounds can still be killed during their first save).
                if round % 2 == 0 {
                    let line = try writer.readLine()
                    let first = line.hasPrefix("saved ") ? Int64(line.dropFirst(6)) : nil
                    #expect(first != nil, "round \(round), seed \(seed): the writer printed \(line.debugDescription), not a save")
                    if let first { acknowledged = first }
                    roundsWithSave += 1
                }
            }
            usleep(UInt32(random.next() % 150_000))
            let output = try writer.kill()
            let saved = output.compactMap { $0.hasPrefix("saved ") ? Int64($0.dropFirst(6)) : nil }
            if let last = saved.last { acknowledged = last }

            let (highest, problems) = try Self.check(storeURL)
            #expect(problems.isEmpty, "round \(round), seed \(seed): \(problems)")
            // The save in flight when the process died may have become durable before its answer.
            #expect(highest == acknowledged || highest == acknowledged + 1,
                    "round \(round), seed \(seed): store holds saves up to \(highest), acknowledged \(acknowledged)")
            if highest == acknowledged + 1 { acknowledged = highest }
        }
        #expect(acknowledged + 1 >= Int64(roundsWithSave), "\(roundsWithSave) rounds each saw a save returned, yet the store's sequence reached only \(acknowledged) (seed \(seed))")
    }

    /// Opens the store for writing (so the dead writer's lock must be gone), checks it and
    /// returns the highest sequence number it holds (-1 when empty or absent) and the problems found.
    static func check(_ storeURL: URL) throws -> (Int64, [String]) {
        guard FileManager.default.fileExists(atPath: storeURL.path) else { return (-1, []) }
        JSONAtomicStore.register()
        let model = try ObjectModel(contentsOf: CrashFiles.model)
        let coordinator = StoreCoordinator(model: model)
        let store = try coordinator.addPersistentStore(type: JSONAtomicStore.storeType, at: storeURL)
        defer { coordinator.remove(store) }
        var problems: [String] = []
        // Opened for writing, the store removes the temporary files of dead writers.
        let directory = storeURL.deletingLastPathComponent()
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".tmp-") }
        if !leftovers.isEmpty { problems.append("temporary files left: \(leftovers)") }
        let context = ObjectContext(coordinator: coordinator)
        let entries = try context.fetch(FetchRequest(entityName: "Entry"))
        let counters = try context.fetch(FetchRequest(entityName: "Counter"))
        guard let counter = counters.first else {
            return (-1, entries.isEmpty ? [] : ["\(entries.count) entries but no counter"])
        }
        if counters.count != 1 { problems.append("\(counters.count) counters") }
        let sequence = try entries.map { try $0.get("seq", as: Int64.self) }.filter { $0 >= 0 }.sorted()
        let highest = sequence.last ?? -1
        if sequence != Array(stride(from: 0, through: highest, by: 1)) {
            problems.append("entries are not 0...\(highest): \(sequence.count) of them")
        }
        if entries.count - sequence.count != fillers { problems.append("\(entries.count - sequence.count) fillers") }
        let value = try counter.get("value", as: Int64.self)
        if value != highest { problems.append("counter is \(value), highest entry \(highest)") }
        let linked = try counter.objects(forKey: "entries").count
        if linked != entries.count { problems.append("counter links \(linked) of \(entries.count) entries") }
        return (highest, problems)
    }
}

/// The crash writer executable (Tests/JSONStoreCrashWriter), built beside the test binary.
struct CrashWriterProcess {
    let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private var buffer = LineBuffer()

    init(model: URL, store: URL, fillers: Int) throws {
        process.executableURL = try Self.binary()
        process.arguments = [model.path, store.path, String(fillers)]
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    /// The next line the writer printed; fails if it exits first.
    mutating func readLine() throws -> String {
        while true {
            if let line = buffer.nextLine() { return line }
            let data = output.fileHandleForReading.availableData
            if data.isEmpty {
                process.waitUntilExit()
                let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                throw CrashTestError("the crash writer exited (status \(process.terminationStatus)) before printing a line: \(message)")
            }
            buffer.append(data)
        }
    }

    /// Kills the writer with SIGKILL and returns the lines it printed since the last `readLine()`.
    mutating func kill() throws -> [String] {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        buffer.append(output.fileHandleForReading.readDataToEndOfFile())
        if process.terminationReason != .uncaughtSignal {
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw CrashTestError("the crash writer stopped by itself (status \(process.terminationStatus)): \(message)")
        }
        var lines: [String] = []
        while let line = buffer.nextLine() { lines.append(line) }
        return lines
    }

    /// Found next to the test binary, or at `$JSON_STORE_CRASH_WRITER`.
    static func binary() throws -> URL {
        try BuiltExecutable.url(named: "JSONStoreCrashWriter", overriddenBy: "JSON_STORE_CRASH_WRITER")
    }
}

/// Bytes split into lines.
struct LineBuffer {
    private var bytes: [UInt8] = []

    mutating func append(_ data: Data) { bytes.append(contentsOf: data) }

    mutating func nextLine() -> String? {
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let line = String(decoding: bytes[..<newline], as: UTF8.self)
        bytes.removeSubrange(...newline)
        return line
    }
}


struct CrashTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

enum CrashFiles {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let model = fixtures.appendingPathComponent("crash.model.json")
}
