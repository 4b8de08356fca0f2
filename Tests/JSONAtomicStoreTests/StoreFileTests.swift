import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore

/// Opening, locking, read-only stores and safe saving.
@Suite struct StoreFileTests {
    let model: ObjectModel
    let directory: TemporaryDirectory
    var url: URL { directory.file("store.json") }

    init() throws {
        model = try CatalogModel.make()
        directory = try TemporaryDirectory()
    }

    @Test func aMissingFileIsANewEmptyStoreWrittenAtTheFirstSave() throws {
        let open = try OpenStore(url, model: model)
        #expect(open.store.cacheNodeCount == 0)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        let context = open.context()
        _ = try context.insert("Tag", values: ["label": "x"])
        try context.save()
        #expect(FileManager.default.fileExists(atPath: url.path))
        #expect(try fileText(url).contains("\"storeUUID\":\"\(open.store.identifier)\""))
        #expect(open.store.identifier == open.store.identifier.lowercased())
    }

    @Test func aMissingDirectoryIsAClearError() {
        let inside = directory.file("no-such-dir").appendingPathComponent("store.json")
        #expect(throws: JSONStoreError.missingDirectory(store: inside.path, directory: directory.file("no-such-dir").path)) {
            _ = try OpenStore(inside, model: model)
        }
        let message = JSONStoreError.missingDirectory(store: inside.path, directory: directory.file("no-such-dir").path).description
        #expect(message == "cannot open store \(inside.path): the directory \(directory.file("no-such-dir").path) does not exist")
    }

    @Test func aSecondOpenForWritingIsRefusedWhileTheLockIsHeld() throws {
        let first = try OpenStore(url, model: model)
        let expected = JSONStoreError.storeInUse(path: url.path, processID: getpid())
        #expect(throws: expected) { _ = try OpenStore(url, model: model) }
        #expect(expected.description == "store \(url.path) is in use by process \(getpid())")
        #expect(try String(contentsOf: directory.file("store.json.lock"), encoding: .utf8) == "\(getpid())\n")
        // Read-only opens take no lock.
        let reader = try OpenStore(url, model: model, readOnly: true)
        reader.close()
        // Removing the store from its coordinator releases the lock.
        first.close()
        let second = try OpenStore(url, model: model)
        second.close()
    }

    @Test func anotherProcessHoldingTheLockIsNamed() throws {
        // A child process takes the lock (flock, as FILE_FORMAT.md says) and holds it until its input closes.
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", """
            import fcntl, os, sys
            f = open(sys.argv[1], "a+"); fcntl.flock(f, fcntl.LOCK_EX)
            f.truncate(0); f.write(str(os.getpid()) + "\\n"); f.flush()
            print("locked", flush=True); sys.stdin.read()
            """, url.path + ".lock"]
        let output = Pipe(), input = Pipe()
        python.standardOutput = output
        python.standardInput = input
        try python.run()
        defer {
            try? input.fileHandleForWriting.close()
            python.waitUntilExit()
        }
        _ = output.fileHandleForReading.availableData  // "locked"
        #expect(throws: JSONStoreError.storeInUse(path: url.path, processID: python.processIdentifier)) {
            _ = try OpenStore(url, model: model)
        }
    }

    @Test func aReadOnlyStoreRefusesToSave() throws {
        let writer = try OpenStore(url, model: model)
        let context = writer.context()
        _ = try context.insert("Tag", values: ["label": "x"])
        try context.save()
        writer.close()
        let before = try Data(contentsOf: url)
        let reader = try OpenStore(url, model: model, readOnly: true)
        let readContext = reader.context()
        let tag = try #require(try readContext.fetch(FetchRequest(entityName: "Tag")).first)
        try tag.set("label", "y")
        #expect(throws: GraphError.readOnlyStore(url.path)) { try readContext.save() }
        #expect(throws: JSONStoreError.readOnly(path: url.path)) { try reader.store.save() }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aStoreWhoseLoadFailedRefusesToSaveAndLeavesTheFileAlone() throws {
        let text = StoreFiles.document(model, objects: "{\"Item\":[\(StoreFiles.item(1, "\"count\":\"x\""))]}")
        try Data(text.utf8).write(to: url)
        JSONAtomicStore.register()
        let coordinator = StoreCoordinator(model: model)
        let store = try JSONAtomicStore(coordinator: coordinator, configurationName: nil, url: url, options: StoreOptions())
        #expect(throws: JSONStoreError.self) { try store.loadMetadata() }
        #expect(throws: JSONStoreError.loadFailed(path: url.path)) { try store.save() }
        #expect(try fileText(url) == text)
        #expect(JSONStoreError.loadFailed(path: url.path).description
            == "store \(url.path) failed to load and refuses to save, so that the file is not overwritten")
        store.willRemove()
        // The failed open through a coordinator does not keep the lock either.
        #expect(throws: JSONStoreError.self) { _ = try OpenStore(url, model: model) }
        #expect(throws: JSONStoreError.self) { _ = try OpenStore(url, model: model) }
    }

    @Test func aFailedWriteLeavesTheOldFileAndNoTemporaryFile() throws {
        try Data("old".utf8).write(to: url)
        struct Interrupted: Error {}
        #expect(throws: Interrupted.self) {
            try DurableFile.replace(path: url.path) { sink in
                try Data("new, half written".utf8).withUnsafeBytes { try sink($0) }
                throw Interrupted()
            }
        }
        #expect(try fileText(url) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["store.json"])
        try DurableFile.replace(path: url.path) { sink in try Data("new".utf8).withUnsafeBytes { try sink($0) } }
        #expect(try fileText(url) == "new")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["store.json"])
    }

    @Test func aFailedSaveRollsTheNodesBack() throws {
        let open = try OpenStore(url, model: model)
        let context = open.context()
        _ = try context.insert("Tag", values: ["label": "kept"])
        try context.save()
        let saved = try fileText(url)
        let journal = journalURL(url)
        let savedJournal = try fileText(journal)
        // Make the next save fail after its record was written, as a full disk would.
        open.store.journal.failNextAppendAfterWriting = true
        _ = try context.insert("Tag", values: ["label": "lost"])
        #expect(throws: JSONStoreError.self) { try context.save() }
        #expect(open.store.cacheNodeCount == 1)
        #expect(open.store.commitSequence == 1)
        #expect(try fileText(url) == saved)
        #expect(try fileText(journal) == savedJournal, "the journal is cut back to its last good record")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
            == ["store.json", "store.json-journal", "store.json.lock"])
        // The next save follows the last good record.
        context.rollback()
        _ = try context.insert("Tag", values: ["label": "second"])
        try context.save()
        open.close()
        let reopened = try OpenStore(url, model: model)
        #expect(reopened.store.cacheNodeCount == 2)
        #expect(reopened.store.commitSequence == 2)
    }

    @Test func userInfoAndNextReferenceSurviveAReopen() throws {
        let open = try OpenStore(url, model: model)
        open.store.metadata.userInfo = ["app": "catalog", "ü": "ß"]
        let context = open.context()
        for i in 0..<3 { _ = try context.insert("Tag", values: ["label": .string("t\(i)")]) }
        try context.save()
        let next = open.store.nextReference
        let uuid = open.store.identifier
        open.close()
        let again = try OpenStore(url, model: model)
        #expect(again.store.metadata.userInfo == ["app": "catalog", "ü": "ß"])
        #expect(again.store.nextReference == next)
        #expect(again.store.identifier == uuid)
        #expect(again.store.metadata.entityVersionHashes == model.entityVersionHashes)
    }
}
