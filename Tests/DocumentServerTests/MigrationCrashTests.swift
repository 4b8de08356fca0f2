import Foundation
import GraphCore
import JSONAtomicStore
import ServerTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `docserver migrate` killed with SIGKILL at random moments: the store must open with the old
/// model or the new one, whole, and the directory hold nothing but the store, its lock and the
/// documented backup.
@Suite("Migration: crash safety")
struct MigrationCrashTests {
    /// Rounds in the normal suite; `MIGRATION_CRASH_ROUNDS` asks for more.
    static let rounds = ProcessInfo.processInfo.environment["MIGRATION_CRASH_ROUNDS"].flatMap { Int($0) } ?? 8
    static let tracks = 20_000

    @Test("a migration killed at any moment leaves a store that opens with the old or the new model")
    func killedMigrationLeavesOldOrNew() throws {
        let directory = try TemporaryDirectory()
        try MigrationFiles.write(in: directory, tracks: Self.tracks)
        let store = directory.file("store.json")
        let original = try Data(contentsOf: store)
        let v1 = try ObjectModel(contentsOf: directory.file("v1.model.json"))
        let v2 = try ObjectModel(contentsOf: directory.file("v2.model.json"))
        let backup = JSONStoreMigrator.backupPath(forStore: store.resolvingSymlinksInPath().path, sourceModel: v1)
        let arguments = ["migrate", "--store", store.path, "--model", directory.file("v2.model.json").path,
                         "--from-model", directory.file("v1.model.json").path]

        // How long a whole migration takes here, so that kills spread over all of it.
        let start = Date()
        let full = try runDocServer(arguments, timeout: 120)
        #expect(full.status == 0, "\(full.errors)")
        let duration = Date().timeIntervalSince(start)
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        var outcomes: [String: Int] = [:]

        for round in 0..<Self.rounds {
            try? FileManager.default.removeItem(atPath: backup)
            try original.write(to: store)
            let process = Process()
            process.executableURL = try DocServerBinary.url()
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let delay = Double(random.next() % 1000) / 1000 * duration * 1.1
            usleep(UInt32(delay * 1_000_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()

            let context = "round \(round), seed \(seed), killed after \(Int(delay * 1000)) ms of \(Int(duration * 1000))"
            let state = try Self.check(store: store, backup: backup, original: original, v1: v1, v2: v2, context: context)
            let backupWritten = FileManager.default.fileExists(atPath: backup)
            outcomes[state + (state == "old" && backupWritten ? " (backup written)" : ""), default: 0] += 1
            // An interrupted migration can always be run again to its end.
            if round % 4 == 3 {
                let again = try runDocServer(arguments, timeout: 120)
                #expect(again.status == 0, "\(context): \(again.errors)")
                #expect(try Self.check(store: store, backup: backup, original: original, v1: v1, v2: v2, context: context) == "new")
            }
        }
        print("migration kills (seed \(seed)): \(outcomes.sorted { $0.key < $1.key })")
    }

    /// "old" or "new": which model the store opens with (for writing, so that leftovers of the
    /// dead process are removed as any open removes them), after checking it whole.
    static func check(store: URL, backup: String, original: Data, v1: ObjectModel, v2: ObjectModel, context: String) throws -> String {
        JSONAtomicStore.register()
        var state = "broken"
        for (name, model) in [("old", v1), ("new", v2)] {
            let coordinator = StoreCoordinator(model: model)
            guard let opened = try? coordinator.addPersistentStore(type: JSONAtomicStore.storeType, at: store) else { continue }
            let count = (opened as? AtomicStore)?.cacheNodeCount ?? -1
            coordinator.remove(opened)
            #expect(count == tracks + 1, "\(context): \(name) store holds \(count) objects")
            state = name
            break
        }
        #expect(state != "broken", "\(context): the store opens with neither model")
        let names = try FileManager.default.contentsOfDirectory(atPath: store.deletingLastPathComponent().path)
            .filter { !$0.hasSuffix(".model.json") }.sorted()
        let backupName = URL(fileURLWithPath: backup).lastPathComponent
        let allowed: Set<String> = ["store.json", "store.json-journal", "store.json.lock", backupName]
        #expect(names.allSatisfy(allowed.contains), "\(context): files left: \(names)")
        if state == "new" { #expect(names.contains(backupName), "\(context): migrated without a backup") }
        if names.contains(backupName) {
            #expect(try Data(contentsOf: URL(fileURLWithPath: backup)) == original, "\(context): the backup is not the old store")
        }
        return state
    }
}
