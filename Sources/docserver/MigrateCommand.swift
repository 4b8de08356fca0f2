import ArgumentParser
import Foundation
import GraphCore
import JSONAtomicStore

struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store to a new version of its model (lightweight migration).",
        discussion: """
            --model is the version to migrate to; --from-model gives the earlier versions, oldest first (repeat it). \
            An Xcode model bundle (.xcdatamodeld) as --model gives its own versions, in order, up to its current one \
            (named by .xccurrentversion), which is the version migrated to. \
            The store's version is found among them by the entity version hashes it records, and the store is \
            taken through each later version in order, in memory, then written once. Prints what changes, entity \
            by entity and property by property, with the numbers of objects. Only lightweight changes are made \
            (docs/MODEL.md, "Model versions and migration"); anything else is refused with every entity and \
            property at fault named.

            The old store file is kept beside the store as <store>.<first 12 hex digits of its model's version \
            hash>.backup (an existing backup is never overwritten). The store's lock is held throughout: a store \
            that a server holds is refused. A kill at any moment leaves the old store or the migrated one.

            A step that would lose data (a removed entity's objects, a removed attribute's values, a removed \
            relationship's links when its inverse is not kept either) is refused, naming each loss and how much, \
            unless --accept-loss names it: Entity for a removed entity, Entity.property for a removed property \
            (names of the older version); --accept-loss all accepts every loss. The migrated store is checked as \
            `check` does before it replaces the store; a store that would not pass is never written over the old one.

            A mapping model (Xcode's .xcmappingmodel folder) runs the step it was made for instead of the \
            inferred one: its entity mappings (a renamed entity included) and property mappings whose value \
            expressions are key paths ($source.name) or expressions of the predicate language ($source.price * 100, \
            FUNCTION($source.name, 'uppercaseString')). The mapping models beside an .xcdatamodeld given as --model are used, and any \
            given with --mapping-model (repeat it). A mapping model is matched to its step by the model versions it \
            records; one that matches no step given, or that cannot be run here (a custom migration policy class, \
            FUNCTION($source, "selector"), an expression that does not parse), is refused by name, never skipped \
            (docs/MODEL.md, "Mapping models"). The loss and store checks apply to its step as to the others.

            A postgresql:// URL as --store migrates a database: read at one instant with the version it was made \
            with, migrated in memory as a store file is (the same steps, loss checks, mapping models and check of \
            the result), then written in one transaction, refused while other sessions (servers) are connected to \
            the database or when a commit was made since it was read. The old tables, reference sequence and \
            history are kept, whole, in the schema _graph_backup_<first 12 hex digits of the old model's version \
            hash> (an existing one is never overwritten); the migration is commit number last + 1, and a change \
            feed's since from before it is answered history expired. A failure leaves the database as it was.

            --dry-run reads and checks everything, prints what would change, and writes nothing. Exit status: 0 \
            when migrated (or nothing to do); 1 when the migration is refused (not lightweight, data that does not \
            fit, data it would lose, a store of none of the versions given); 2 when it cannot be done (a missing or invalid store or \
            model file, a store in use).
            """
    )

    @Option(help: ArgumentHelp("The store file to migrate, or a database's postgresql:// URL.", valueName: "file-or-url"))
    var store: String

    @Option(help: ArgumentHelp("The model to migrate to (docs/MODEL.md), or an .xcdatamodeld bundle holding the earlier versions too.",
                               valueName: "file"))
    var model: String

    @Option(name: .customLong("from-model"),
            help: ArgumentHelp("An earlier version of the model, oldest first; repeat for each version.", valueName: "file"))
    var fromModels: [String] = []

    @Option(name: .customLong("accept-loss"),
            help: ArgumentHelp("Accept the loss of a removed entity's objects (Entity) or a removed property's values "
                               + "(Entity.property), as the refusal names it; repeat for each; 'all' accepts every loss.",
                               valueName: "name"))
    var acceptLoss: [String] = []

    @Option(name: .customLong("mapping-model"),
            help: ArgumentHelp("An Xcode mapping model (.xcmappingmodel) for a step between the versions; repeat for each.",
                               valueName: "path"))
    var mappingModels: [String] = []

    @Flag(help: "Print what would change and write nothing.")
    var dryRun = false

    func run() throws {
        #if PostgreSQL
        if let database = try StoreLocation.database(named: store, verb: "migrate") {
            try migrateDatabase(database.url, shownAs: database.location)
            return
        }
        #else
        try StoreLocation.refuseDatabase(named: store, verb: "migrate")
        #endif
        let migrator: JSONStoreMigrator
        do {
            migrator = try Self.migrator(store: store, model: model, fromModels: fromModels,
                                         acceptedLosses: MigrationLossAcceptance(names: Set(acceptLoss)),
                                         mappingModels: mappingModels)
        } catch {
            FileHandle.standardError.write(Data("cannot migrate: a model cannot be used: \(error)\n".utf8))
            throw ExitCode(2)
        }
        do {
            let outcome = dryRun ? try migrator.plan() : try migrator.migrate()
            if outcome.wasCurrent {
                print("\(store): already at the model version of \(model); nothing to migrate")
                return
            }
            if dryRun { print("dry run: nothing is written") }
            print(outcome.report)
            if let backup = outcome.backupPath { print("migrated \(store); the old store is kept as \(backup)") }
        } catch let error as MigrationError {
            FileHandle.standardError.write(Data("\(store): \(error)\n".utf8))
            throw ExitCode(1)
        } catch {
            FileHandle.standardError.write(Data("cannot migrate: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }

    /// A migrator of `store` through the versions `fromModels` (oldest first) to `model`.
    /// An Xcode model bundle (`.xcdatamodeld`) as `model` gives its versions, in the bundle's
    /// order, up to its current one (named by `.xccurrentversion`), which is the destination;
    /// `fromModels` come before them.
    static func migrator(store: String, model: String, fromModels: [String],
                         acceptedLosses: MigrationLossAcceptance = .none, mappingModels: [String] = []) throws -> JSONStoreMigrator {
        var versions = try fromModels.map { try ObjectModel(contentsOf: URL(fileURLWithPath: $0)) }
        var labels = fromModels.map { URL(fileURLWithPath: $0).lastPathComponent }
        var names = fromModels.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent }
        var unreadableBefore: [Int: [String]] = [:]
        var mappings = try mappingModels.map { try XcodeMappingModel(contentsOf: URL(fileURLWithPath: $0)) }
        var bundleName: String?
        if isBundle(model) {
            let bundleURL = URL(fileURLWithPath: model)
            bundleName = bundleURL.deletingPathExtension().lastPathComponent
            mappings += try mappingModelsBeside(bundleURL)
            let bundle = try ModelBundle(contentsOf: URL(fileURLWithPath: model))
            for note in bundle.notes where note.severity == .warning && note.message.contains("cannot be read") {
                FileHandle.standardError.write(Data("warning: \(note)\n".utf8))
            }
            // Unreadable versions are skipped, each noted before the readable version that follows it.
            var pending: [String] = []
            let unreadable = Set(bundle.unreadable.map(\.name))
            for name in bundle.allNames {
                if unreadable.contains(name) {
                    pending.append(name)
                } else if let version = bundle.model(named: name) {
                    if !pending.isEmpty { unreadableBefore[versions.count] = pending }
                    pending = []
                    versions.append(version)
                    names.append(name)
                    labels.append("\(URL(fileURLWithPath: model).lastPathComponent)/\(name)")
                }
                if name == bundle.currentName { break }
            }
        } else {
            versions.append(try ObjectModel(contentsOf: URL(fileURLWithPath: model)))
            labels.append(URL(fileURLWithPath: model).lastPathComponent)
            names.append(URL(fileURLWithPath: model).deletingPathExtension().lastPathComponent)
        }
        return JSONStoreMigrator(path: store, versions: versions, labels: labels, acceptedLosses: acceptedLosses,
                                 unreadableBefore: unreadableBefore, mappingModels: mappings, versionNames: names,
                                 bundleName: bundleName)
    }

    /// The mapping models (`.xcmappingmodel`) in the folder of a model bundle that were made
    /// for that bundle: those whose recorded model paths name it, or name no bundle.
    static func mappingModelsBeside(_ bundle: URL) throws -> [XcodeMappingModel] {
        let folder = bundle.deletingLastPathComponent()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let bundleName = bundle.deletingPathExtension().lastPathComponent
        return try names.filter { $0.hasSuffix(".xcmappingmodel") }.sorted().compactMap { name in
            let mapping = try XcodeMappingModel(contentsOf: folder.appendingPathComponent(name))
            return mapping.bundleName == nil || mapping.bundleName == bundleName ? mapping : nil
        }
    }

    /// Whether `path` names an Xcode model bundle, whose versions a migration can start from.
    static func isBundle(_ path: String) -> Bool {
        URL(fileURLWithPath: path).pathExtension == "xcdatamodeld"
    }

    /// What `serve` does before it opens the store, when given `--from-model` or `--migrate`:
    /// with `migrate`, migrates a store written with an earlier version (returning the report);
    /// without, refuses such a store with the dry run's text. Nothing for a store at `model`'s
    /// version, or a store that does not exist yet.
    static func prepareToServe(store: String, model: String?, fromModels: [String], migrate: Bool) throws -> String? {
        guard migrate || !fromModels.isEmpty || model.map(isBundle) == true else { return nil }
        guard let model else { throw ServeMigrationRefusal(text: "--migrate and --from-model need --model (the version to migrate to)") }
        guard FileManager.default.fileExists(atPath: store) else { return nil }
        let migrator = try migrator(store: store, model: model, fromModels: fromModels)
        guard migrate else {
            let outcome = try migrator.plan()
            if outcome.wasCurrent { return nil }
            throw ServeMigrationRefusal(text: "\(store) was written with an earlier version of the model; "
                + "start with --migrate to migrate it (docserver migrate --dry-run shows the same):\n\(outcome.report)")
        }
        let outcome = try migrator.migrate()
        if outcome.wasCurrent { return nil }
        return outcome.report + "\nthe old store is kept as \(outcome.backupPath ?? "(no backup)")"
    }
}

/// `serve` refuses a store written with an earlier model version without `--migrate`.
struct ServeMigrationRefusal: Error, CustomStringConvertible {
    /// The refusal and the dry run's report.
    let text: String
    var description: String { text }
}
