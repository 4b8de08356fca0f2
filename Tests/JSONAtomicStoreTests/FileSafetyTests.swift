import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore
#if canImport(Glibc)
import Glibc
#endif

/// Temporary and lock files that cannot be hijacked, one lock per real file whatever name
/// opens it, and file modes.
@Suite struct FileSafetyTests {
    let model: ObjectModel
    let directory: TemporaryDirectory
    var url: URL { directory.file("store.json") }
    let fileManager = FileManager.default

    init() throws {
        model = try CatalogModel.make()
        directory = try TemporaryDirectory()
    }

    private func save(_ open: OpenStore, label: String = "x") throws {
        let context = open.context()
        _ = try context.insert("Tag", values: ["label": .string(label)])
        try context.save()
    }

    private func info(_ url: URL) -> stat? {
        var result = stat()
        return lstat(url.path, &result) == 0 ? result : nil
    }

    private func mode(_ url: URL) -> mode_t? { info(url).map { $0.st_mode & 0o7777 } }

    private func isSymlink(_ url: URL) -> Bool { info(url).map { ($0.st_mode & S_IFMT) == S_IFLNK } ?? false }

    // MARK: - Temporary files

    @Test("a symlink planted at the old predictable temporary name is not written through")
    func plantedSymlinkAtTheOldTemporaryNameIsHarmless() throws {
        let victim = directory.file("victim.txt")
        try Data("precious".utf8).write(to: victim)
        let open = try OpenStore(url, model: model)
        try fileManager.createSymbolicLink(at: directory.file(".store.json.tmp-\(getpid())"), withDestinationURL: victim)
        try save(open)
        try open.store.checkpoint()
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious")
        #expect(try fileText(url).contains("\"label\":\"x\""))
    }

    @Test("temporary names are random and are created exclusively, mode 0600")
    func temporaryNamesAreRandom() throws {
        let first = try DurableFile.createTemporary(for: url.path)
        let second = try DurableFile.createTemporary(for: url.path)
        defer {
            close(first.descriptor); close(second.descriptor)
            unlink(first.path); unlink(second.path)
        }
        #expect(first.path != second.path)
        let name = URL(fileURLWithPath: first.path).lastPathComponent
        #expect(name.hasPrefix(".store.json.tmp-") && name.count == ".store.json.tmp-".count + 16)
        #expect(DurableFile.isTemporaryName(name, of: url.path))
        #expect(mode(URL(fileURLWithPath: first.path)) == 0o600)
    }

    @Test("leftovers of a crashed save are removed at open, under the new and the old name pattern only")
    func leftoversAreRemovedAtOpen() throws {
        for name in [".store.json.tmp-0123456789abcdef", ".store.json.tmp-4242", ".store.json.tmp-notours", ".other.json.tmp-4242"] {
            try Data("x".utf8).write(to: directory.file(name))
        }
        let victim = directory.file("victim.txt")
        try Data("precious".utf8).write(to: victim)
        try fileManager.createSymbolicLink(at: directory.file(".store.json.tmp-fedcba9876543210"), withDestinationURL: victim)
        let open = try OpenStore(url, model: model)
        defer { open.close() }
        let names = try fileManager.contentsOfDirectory(atPath: directory.url.path).sorted()
        #expect(names == [".other.json.tmp-4242", ".store.json.tmp-notours", "store.json.lock", "victim.txt"])
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious")
    }

    // MARK: - Lock file

    @Test("a symlink planted at the lock file's name is refused, and its target left alone")
    func symlinkedLockFileIsRefused() throws {
        let victim = directory.file("victim.txt")
        try Data("precious".utf8).write(to: victim)
        try fileManager.createSymbolicLink(at: directory.file("store.json.lock"), withDestinationURL: victim)
        #expect(throws: JSONStoreError.unsafeFile(path: url.path + ".lock", reason: "the lock file is a symbolic link")) {
            _ = try OpenStore(url, model: model)
        }
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious")
    }

    @Test("a lock file with a second hard link is refused, and the other file left alone")
    func hardLinkedLockFileIsRefused() throws {
        let victim = directory.file("victim.txt")
        try Data("precious".utf8).write(to: victim)
        try fileManager.linkItem(at: victim, to: directory.file("store.json.lock"))
        #expect(throws: JSONStoreError.unsafeFile(path: url.path + ".lock", reason: "the lock file must be a regular file with one link")) {
            _ = try OpenStore(url, model: model)
        }
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious")
    }

    // MARK: - Real paths

    @Test("a store opened through a symlink locks the real file, and a save leaves the symlink a symlink")
    func symlinkToTheStore() throws {
        let real = directory.file("real.json")
        let link = directory.file("link.json")
        try fileManager.createSymbolicLink(at: link, withDestinationURL: real)  // the store does not exist yet
        let open = try OpenStore(link, model: model)
        #expect(open.store.realPath == real.path)
        try save(open, label: "first")
        #expect(fileManager.fileExists(atPath: real.path + "-journal"))
        #expect(!fileManager.fileExists(atPath: link.path + "-journal"))
        try open.store.checkpoint()
        #expect(isSymlink(link))
        #expect(try fileText(real).contains("\"label\":\"first\""))
        #expect(!fileManager.fileExists(atPath: link.path + ".lock"))
        // The real path and the symlink meet one lock.
        #expect(throws: JSONStoreError.storeInUse(path: real.path, processID: getpid())) { _ = try OpenStore(real, model: model) }
        #expect(throws: JSONStoreError.storeInUse(path: real.path, processID: getpid())) { _ = try OpenStore(link, model: model) }
        try save(open, label: "second")
        #expect(isSymlink(link))
        open.close()
        let again = try OpenStore(real, model: model)
        #expect(again.store.cacheNodeCount == 2)
        again.close()
    }

    @Test("a path through a symlinked directory or with .. meets the same lock")
    func symlinkedDirectoryAndDotDot() throws {
        let inside = directory.file("inside")
        try fileManager.createDirectory(at: inside, withIntermediateDirectories: false)
        let alias = directory.file("alias")
        try fileManager.createSymbolicLink(at: alias, withDestinationURL: inside)
        let open = try OpenStore(inside.appendingPathComponent("store.json"), model: model)
        defer { open.close() }
        let real = inside.appendingPathComponent("store.json").path
        #expect(throws: JSONStoreError.storeInUse(path: real, processID: getpid())) {
            _ = try OpenStore(alias.appendingPathComponent("store.json"), model: model)
        }
        let dotDot = URL(fileURLWithPath: inside.path + "/../inside/store.json")
        #expect(throws: JSONStoreError.storeInUse(path: real, processID: getpid())) { _ = try OpenStore(dotDot, model: model) }
    }

    @Test("a store file with a second hard link is refused for writing, and opens read-only")
    func hardLinkedStoreIsRefusedForWriting() throws {
        let open = try OpenStore(url, model: model)
        try save(open)
        open.close()
        try fileManager.linkItem(at: url, to: directory.file("backup.json"))
        #expect {
            _ = try OpenStore(url, model: model)
        } throws: { error in
            guard case .unsafeFile(let path, let reason)? = error as? JSONStoreError else { return false }
            return path == url.path && reason.hasPrefix("the store file has 2 hard links")
        }
        let reader = try OpenStore(url, model: model, readOnly: true)
        #expect(reader.store.cacheNodeCount == 1)
        reader.close()
        // The refusal released the lock.
        try fileManager.removeItem(at: directory.file("backup.json"))
        try OpenStore(url, model: model).close()
    }

    // MARK: - Modes

    @Test("new store and lock files are created 0600")
    func newFilesAreOwnerOnly() throws {
        let open = try OpenStore(url, model: model)
        try save(open)
        #expect(mode(url) == 0o600)
        #expect(mode(directory.file("store.json.lock")) == 0o600)
        open.close()
    }

    @Test("the fileMode option shares new files with the group", arguments: ["640", "0660"])
    func fileModeOption(_ text: String) throws {
        let open = try OpenStore(url, model: model, values: [JSONAtomicStore.fileModeOption: text])
        try save(open)
        let expected = mode_t(text, radix: 8)
        #expect(mode(url) == expected)
        #expect(mode(directory.file("store.json.lock")) == expected)
        open.close()
    }

    @Test("a fileMode that gives others access, or is not octal, is refused", arguments: ["644", "666", "400", "rw", "7000"])
    func badFileModeIsRefused(_ text: String) {
        #expect {
            _ = try OpenStore(url, model: model, values: [JSONAtomicStore.fileModeOption: text])
        } throws: { error in
            guard case .invalidOption(let name, let value, _)? = error as? JSONStoreError else { return false }
            return name == "fileMode" && value == text
        }
        #expect(!fileManager.fileExists(atPath: url.path + ".lock"))
    }

    @Test("an existing store file keeps its mode and owner across saves")
    func existingModeAndOwnerAreKept() throws {
        let open = try OpenStore(url, model: model)
        try save(open)
        #expect(chmod(url.path, 0o604) == 0)
        let canChown = geteuid() == 0
        if canChown { #expect(chown(url.path, 4242, 4343) == 0) }
        try save(open, label: "y")
        #expect(mode(url) == 0o604)
        if canChown {
            #expect(info(url)?.st_uid == 4242)
            #expect(info(url)?.st_gid == 4343)
        }
        open.close()
    }
}
