// Only with the PostgreSQL trait (Package.swift): the commands' work on a postgresql:// store.
#if PostgreSQL
import ArgumentParser
import Foundation
import GraphCore
import JSONAtomicStore
import PostgresStore

extension MigrateCommand {
    /// `migrate` of a PostgreSQL store: the database read at one instant with the version it
    /// was made with, its objects taken through the later versions in memory (the same plan,
    /// loss checks and mapping models as a store file's), checked as a store file of theirs,
    /// then written in one transaction that keeps the old tables in a schema of their own
    /// (``PostgresStore/replaceStore(madeWith:objects:storeIdentifier:lastCommit:lastReference:backupSchema:)``).
    func migrateDatabase(_ url: URL, shownAs location: StoreLocation) throws {
        let migrator: JSONStoreMigrator
        do {
            migrator = try Self.migrator(store: store, model: model, fromModels: fromModels,
                                         acceptedLosses: MigrationLossAcceptance(names: Set(acceptLoss)), mappingModels: mappingModels)
        } catch {
            FileHandle.standardError.write(Data("cannot migrate: a model cannot be used: \(error)\n".utf8))
            throw ExitCode(2)
        }
        guard let destination = migrator.versions.last else { throw ExitCode(2) }
        do {
            var found: (index: Int, contents: PostgresStore.Contents)?
            for index in migrator.versions.indices.reversed() {
                do {
                    found = (index, try DatabaseReading.read(url, model: migrator.versions[index]).contents)
                    break
                } catch GraphError.modelMismatch {
                    continue
                }
            }
            guard let (index, read) = found else {
                throw MigrationError.noMatchingVersion(store: "\(location)", tried: migrator.versions.count)
            }
            if index == migrator.versions.count - 1 {
                print("\(location): already at the model version of \(model); nothing to migrate")
                return
            }
            let crossed = migrator.versions.indices.filter { $0 > index }.flatMap { migrator.unreadableBefore[$0] ?? [] }
            if !crossed.isEmpty { throw StoreMigrationError.unreadableVersionOnPath(names: crossed) }
            let plan = try MigrationPlan(versions: migrator.versions, from: index, labels: migrator.labels,
                                         versionNames: migrator.versionNames, mappingModels: migrator.mappingModels,
                                         bundleName: migrator.bundleName)
            let nodes = read.objects.map { ObjectSnapshot(objectID: $0.objectID, version: $0.version, values: $0.values) }
            let (migrated, report) = try plan.migrate(nodes, acceptingLosses: migrator.acceptedLosses)
            let objects = migrated.map { ObjectSnapshot(objectID: $0.objectID, version: $0.version, values: $0.values) }
            var checked = read
            checked.objects = objects
            try CheckCommand.checkAsStoreFile(checked, model: destination, shownAs: "\(location) (migrated)")
            if dryRun {
                print("dry run: nothing is written")
                print(report)
                return
            }
            let backup = PostgresStore.backupSchema(forModelVersionHash: migrator.versions[index].versionHash)
            let coordinator = StoreCoordinator(model: destination)
            let writer = try PostgresStore(coordinator: coordinator, configurationName: nil, url: url, options: StoreOptions())
            defer { withExtendedLifetime(coordinator) { writer.willRemove() } }
            try writer.replaceStore(madeWith: migrator.versions[index], objects: objects, storeIdentifier: read.storeIdentifier,
                                    lastCommit: read.lastCommit, lastReference: read.lastReference, backupSchema: backup)
            print(report)
            print("migrated \(location); the old tables are kept in the schema \(backup)")
        } catch let error as MigrationError {
            FileHandle.standardError.write(Data("\(location): \(error)\n".utf8))
            throw ExitCode(1)
        } catch let error as StoreMigrationError {
            FileHandle.standardError.write(Data("\(location): \(error)\n".utf8))
            throw ExitCode(1)
        } catch let error as CheckRefusal {
            FileHandle.standardError.write(Data("\(error); nothing was changed\n".utf8))
            throw ExitCode(1)
        } catch {
            FileHandle.standardError.write(Data("cannot migrate: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }
}
#endif
