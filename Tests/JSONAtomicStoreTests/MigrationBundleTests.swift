import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore

/// The real Xcode model bundles (`../shared/fixtures/xcdatamodel/bundles`, read in place): a
/// store written with each version opens with the next one after a migration, its objects
/// keeping their IDs and versions, and a store of the first version is carried through all of
/// them at once.
@Suite("Migration: real Xcode model bundles")
struct MigrationBundleTests {
    static let bundles = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/fixtures/xcdatamodel/bundles")

    static func realBundles() throws -> [ModelBundle] {
        try FileManager.default.contentsOfDirectory(at: bundles, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "xcdatamodeld" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
            .map { try ModelBundle(contentsOf: $0) }
    }

    /// A value of `type` that every rule a sample model sets accepts.
    static func sample(_ type: AttributeType, _ n: Int) -> Value {
        switch type {
        case .int16, .int32, .int64: return .int(Int64(n % 100))
        case .double, .float: return .double(Double(n % 100) + 0.5)
        case .decimal: return .decimal(Decimal(n % 100))
        case .string: return .string("value \(n)")
        case .bool: return .bool(n % 2 == 0)
        case .date: return .date(Date(timeIntervalSince1970: 1_700_000_000 + Double(n)))
        case .binary: return .binary(Data([UInt8(n % 256), 1, 2]))
        case .uuid: return .uuid(UUID())
        case .uri: return .uri(URL(string: "https://example.com/\(n)") ?? URL(fileURLWithPath: "/"))
        }
    }

    /// Writes a store of `model` at `url` holding, for every concrete entity, two objects with
    /// every attribute set (entities whose objects cannot be saved without related objects are
    /// left out). Returns the saved objects' references and versions, by entity name.
    static func writeStore(of model: ObjectModel, at url: URL) throws -> [String: [Int64: Int64]] {
        JSONAtomicStore.register()
        let coordinator = StoreCoordinator(model: model)
        let store = try coordinator.addPersistentStore(type: JSONAtomicStore.storeType, at: url)
        defer { coordinator.remove(store) }
        var saved: [String: [Int64: Int64]] = [:]
        var n = 0
        for entity in model.entities where !entity.isAbstract {
            let context = ObjectContext(coordinator: coordinator)
            var objects: [ManagedObject] = []
            for _ in 0..<2 {
                let object = try context.insert(entity.name)
                for attribute in entity.attributes {
                    n += 1
                    try? object.setValue(sample(attribute.type, n), forKey: attribute.name)
                }
                objects.append(object)
            }
            do {
                try context.save()
            } catch {
                continue  // needs related objects: not part of this check
            }
            // A second save of the first object: versions other than 1 must survive too.
            if let first = objects.first, let attribute = entity.attributes.first(where: { $0.type == .string }) {
                try first.setValue(.string("saved twice"), forKey: attribute.name)
                try context.save()
            }
            for object in objects {
                guard case .int(let reference) = object.objectID.referenceObject,
                      let snapshot = try store.snapshot(for: object.objectID) else { continue }
                saved[entity.name, default: [:]][reference] = snapshot.version
            }
        }
        return saved
    }

    @Test("a store of each version of a real bundle migrates to the next, keeping IDs and versions")
    func eachVersionMigratesToTheNext() throws {
        let bundles = try Self.realBundles()
        #expect(bundles.count == 3)
        var steps = 0
        for bundle in bundles {
            for (old, new) in zip(bundle.versions, bundle.versions.dropFirst()) {
                let label = "\(bundle.url.lastPathComponent): \(old.name) → \(new.name)"
                let directory = try TemporaryDirectory()
                let url = directory.file("store.json")
                let saved = try Self.writeStore(of: old.model, at: url)
                #expect(!saved.isEmpty, "\(label): no object could be saved")
                // Real steps remove entities and attributes: their losses are accepted here (their
                // refusal without acceptance is MigrationLossTests' and MigrationSafetyTests').
                let outcome = try JSONStoreMigrator(path: url.path, versions: [old.model, new.model],
                                                    labels: [old.name, new.name], acceptedLosses: .all).migrate()
                #expect(!outcome.wasCurrent, "\(label)")
                let after = try OpenStore(url, model: new.model, readOnly: true)
                for (entityName, objects) in saved {
                    // An entity renamed in the new version is found by its renaming identifier.
                    guard let entity = new.model.entity(named: entityName)
                        ?? new.model.entities.first(where: { $0.renamingIdentifier == entityName }) else { continue }
                    for (reference, version) in objects {
                        let node = after.store.cacheNodes().first {
                            $0.objectID.referenceObject == .int(reference)
                                && ($0.objectID.entity.isKind(of: entity) || entity.isKind(of: $0.objectID.entity))
                        }
                        #expect(node?.version == version, "\(label): \(entityName) \(reference)")
                    }
                }
                steps += 1
            }
        }
        #expect(steps >= 5)
    }

    @Test("a store of the first version of a real bundle is carried through every version at once")
    func firstVersionMigratesThroughAll() throws {
        for bundle in try Self.realBundles() where bundle.versions.count > 2 {
            let directory = try TemporaryDirectory()
            let url = directory.file("store.json")
            let saved = try Self.writeStore(of: bundle.versions[0].model, at: url)
            let outcome = try JSONStoreMigrator(path: url.path, versions: bundle.versions.map(\.model),
                                                labels: bundle.versions.map(\.name), acceptedLosses: .all).migrate()
            #expect(outcome.report.contains("step \(bundle.versions.count - 1) of \(bundle.versions.count - 1)"),
                    "\(bundle.url.lastPathComponent): \(outcome.report)")
            let last = try #require(bundle.versions.last).model
            let after = try OpenStore(url, model: last, readOnly: true)
            #expect(after.store.cacheNodeCount >= 1)
            #expect(after.store.cacheNodeCount <= saved.values.reduce(0) { $0 + $1.count })
        }
    }
}
