// Only with the PostgreSQL trait (Package.swift): the commands' work on a postgresql:// store.
#if PostgreSQL
import ArgumentParser
import Foundation
import GraphCore
import JSONAtomicStore
import PostgresStore

extension CheckCommand {
    /// `check` of a PostgreSQL store: the database read at one instant (read-only, nothing is
    /// created or changed, servers may go on saving), its objects checked by the JSON store's
    /// loader as a store file of theirs (value types, required values, references of the right
    /// entity, inverses that agree, uniqueness constraints; the file is temporary and removed),
    /// its history numbered without a hole, and its reference sequence past every object's
    /// reference.
    func checkDatabase(_ url: URL, shownAs location: StoreLocation) throws {
        let objectModel: ObjectModel
        do {
            objectModel = try SampleModel.load(path: model)
        } catch {
            FileHandle.standardError.write(Data("cannot check: the model cannot be used: \(error)\n".utf8))
            throw ExitCode(2)
        }
        let read: PostgresStore.Contents, gap: (after: Int64, next: Int64)?
        do {
            (read, gap) = try DatabaseReading.read(url, model: objectModel, checkHistory: true)
        } catch {
            throw DatabaseReading.fail(error, prefix: "\(location): ")
        }
        var problems: [String] = []
        if let gap {
            problems.append("the history has no commit between \(gap.after) and \(gap.next): its numbering has a hole")
        }
        let highest = read.objects.compactMap { object -> Int64? in
            if case .int(let reference) = object.objectID.referenceObject { return reference }
            return nil
        }.max() ?? 0
        if highest > read.lastReference {
            problems.append("the reference sequence stands at \(read.lastReference), below the object with reference \(highest): "
                            + "the next insert would be refused")
        }
        if let problem = problems.first {
            FileHandle.standardError.write(Data("\(location): \(problem)\n".utf8))
            throw ExitCode(1)
        }
        do {
            try Self.checkAsStoreFile(read, model: objectModel, shownAs: "\(location)")
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(1)
        }
        let perEntity = DatabaseReading.counts(read.objects)
        let history = read.history.rows == 0 ? "history empty"
            : "history \(read.history.rows) row(s), \(read.history.first) to \(read.history.last)"
        print("\(location): ok, \(read.objects.count) objects" + (perEntity.isEmpty ? "" : " (\(perEntity))")
              + ", store \(read.storeIdentifier), model \(objectModel.versionHash.prefix(12)), commit \(read.lastCommit), " + history)
    }

    /// Writes the objects as a store file in a new temporary directory, which the writer loads
    /// as a server would before it keeps it; errors name `shownAs`. The directory is removed.
    static func checkAsStoreFile(_ read: PostgresStore.Contents, model: ObjectModel, shownAs: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("docserver-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try StoreImportWriter.write(path: directory.appendingPathComponent("check.json").path, model: model,
                                        storeUUID: read.storeIdentifier, userInfo: [:], nodes: DatabaseReading.nodesByEntity(read.objects),
                                        replacing: false, commitSequence: read.lastCommit, shownAs: shownAs)
        } catch let refused as ImportedContentRefused {
            throw CheckRefusal(text: "\(shownAs): \(refused.reason)")
        }
    }
}

/// What `check` found wrong, as it prints it.
struct CheckRefusal: Error, CustomStringConvertible {
    let text: String
    var description: String { text }
}
#endif
