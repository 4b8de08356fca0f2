// Only with the PostgreSQL trait (Package.swift): the commands' work on a postgresql:// store.
#if PostgreSQL
import ArgumentParser
import Foundation
import GraphCore
import JSONAtomicStore
import PostgresStore

extension CopyCommand {
    /// The database at `databaseURL` into a new JSON store file at `file`: the database at one
    /// instant, with its store identifier (IDs clients hold stay valid), versions, last commit
    /// number and reference counter, checked as a server's loader checks a store before it is
    /// renamed into place.
    func copyOutOfDatabase(_ databaseURL: URL, shownAs source: StoreLocation, to file: String) throws {
        let objectModel: ObjectModel
        do {
            objectModel = try SampleModel.load(path: model)
        } catch {
            fail("cannot copy: the model cannot be used: \(error)", status: 2)
        }
        let started = ContinuousClock.now
        let read: PostgresStore.Contents
        do {
            read = try DatabaseReading.read(databaseURL, model: objectModel) { count in
                FileHandle.standardError.write(Data("read \(count) objects\n".utf8))
            }.contents
        } catch let error as PostgresStoreError {
            if case .noStore = error { fail("cannot copy: \(error)", status: 2) }
            fail("cannot copy: \(error) (nothing was written)", status: 1)
        } catch {
            fail("cannot copy: \(error) (nothing was written)", status: 1)
        }
        FileHandle.standardError.write(Data("writing \(read.objects.count) objects to \(file)\n".utf8))
        do {
            try StoreImportWriter.write(path: file, model: objectModel, storeUUID: read.storeIdentifier, userInfo: [:],
                                        nodes: DatabaseReading.nodesByEntity(read.objects), replacing: false,
                                        commitSequence: read.lastCommit, nextReference: read.lastReference == .max ? .max : read.lastReference + 1,
                                        shownAs: "\(source)")
        } catch let error as StoreImportWriter.NotEmpty {
            fail("cannot copy: \(error)", status: 2)
        } catch let error as JSONStoreError {
            switch error {
            case .storeInUse, .missingDirectory: fail("cannot copy: \(error)", status: 2)
            default: fail("cannot copy: \(error) (\(file) is unchanged)", status: 1)
            }
        } catch {
            fail("cannot copy: \(error) (\(file) is unchanged)", status: 1)
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let perEntity = DatabaseReading.counts(read.objects)
        print("\(source): \(read.objects.count) objects" + (perEntity.isEmpty ? "" : " (\(perEntity))")
              + " at commit \(read.lastCommit) copied into \(file) in " + String(format: "%.1f s", seconds))
    }
}
#endif
