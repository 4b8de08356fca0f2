import Foundation
import GraphCore
import ServerTestSupport
import Testing
@testable import JSONAtomicStore

/// Steps run with an Xcode mapping model (`.xcmappingmodel`) instead of being inferred.
@Suite("Migration: mapping models")
struct MappingModelMigrationTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/mapping")
    static let bundleURL = fixtures.appendingPathComponent("Shop.xcdatamodeld")

    static func mappingModel(_ name: String) throws -> XcodeMappingModel {
        try XcodeMappingModel(contentsOf: fixtures.appendingPathComponent("models/\(name).xcmappingmodel"))
    }

    /// A store of the bundle's first version: Ann with orders 1 (1999 cents) and 2 (500), Bob with order 3 (250).
    static func writeShopStore(at url: URL) throws -> (ObjectModel, ObjectModel) {
        let bundle = try ModelBundle(contentsOf: bundleURL)
        let v1 = try #require(bundle.model(named: "Shop")), v2 = bundle.current
        JSONAtomicStore.register()
        let coordinator = StoreCoordinator(model: v1)
        let store = try coordinator.addPersistentStore(type: JSONAtomicStore.storeType, at: url)
        defer { coordinator.remove(store) }
        let context = ObjectContext(coordinator: coordinator)
        let ann = try context.insert("Customer", values: ["name": "Ann"])
        let bob = try context.insert("Customer", values: ["name": "Bob"])
        for (number, cents, customer) in [(1, 1999, ann), (2, 500, ann), (3, 250, bob)] {
            let order = try context.insert("Order", values: ["number": .int(Int64(number)), "priceCents": .int(Int64(cents))])
            try order.setObject(customer, forKey: "customer")
        }
        try context.save()
        return (v1, v2)
    }

    static func migrator(_ url: URL, _ versions: [ObjectModel], mapping: [XcodeMappingModel]) -> JSONStoreMigrator {
        JSONStoreMigrator(path: url.path, versions: versions, mappingModels: mapping, versionNames: ["Shop", "Shop 2"], bundleName: "Shop")
    }

    @Test("a mapping model is read from Xcode's xcmapping.xml with its versions, entity mappings and value expressions")
    func readsXcodeFormat() throws {
        let mapping = try Self.mappingModel("ShopToShop2")
        #expect(mapping.name == "ShopToShop2.xcmappingmodel")
        #expect(mapping.sourceVersion == "Shop" && mapping.destinationVersion == "Shop 2" && mapping.bundleName == "Shop")
        #expect(mapping.entityMappings.map(\.name) == ["CustomerToClient", "OrderToPurchase"])
        let order = try #require(mapping.entityMappings.last)
        #expect(order.sourceName == "Order" && order.destinationName == "Purchase" && order.typeName == "Transform")
        #expect(order.customSource == nil && order.policyClassName == nil)
        #expect(order.attributes.map(\.value) == [.expression("FUNCTION($source.customer.name, 'uppercaseString')"),
                                                  .expression("$source.number"), .expression("$source.priceCents / 100")])
        #expect(mapping.maps(from: "Shop", to: "Shop 2", bundle: "Shop"))
        #expect(!mapping.maps(from: "Shop", to: "Shop 2", bundle: "Other"))
    }

    @Test("a step with a mapping model renames the entity, computes values by key path and by expression and carries the relationships")
    func mappedStepKeepsAndComputes() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("store.json")
        let (v1, v2) = try Self.writeShopStore(at: url)
        let outcome = try Self.migrator(url, [v1, v2], mapping: [try Self.mappingModel("ShopToShop2")]).migrate()
        #expect(outcome.report.contains("renamed from Customer (mapping model ShopToShop2.xcmappingmodel)"), "\(outcome.report)")
        #expect(outcome.report.contains("computed by the mapping model's $source.priceCents / 100"), "\(outcome.report)")
        let after = try OpenStore(url, model: v2, readOnly: true)  // the checks `check` makes
        defer { after.close() }
        let nodes = after.store.cacheNodes()
        let clients = nodes.filter { $0.objectID.entityName == "Client" }
        let purchases = nodes.filter { $0.objectID.entityName == "Purchase" }.sorted {
            ($0.value(forKey: "number").flatMap { if case .int(let i) = $0 { i } else { nil } } ?? 0)
                < ($1.value(forKey: "number").flatMap { if case .int(let i) = $0 { i } else { nil } } ?? 0)
        }
        #expect(clients.count == 2 && purchases.count == 3)
        let ann = try #require(clients.first { $0.value(forKey: "fullName") == "Ann" })
        #expect(purchases.map { $0.value(forKey: "price") } == [.double(19.99), .double(5), .double(2.5)])
        #expect(purchases.map { $0.value(forKey: "label") } == ["ANN", "ANN", "BOB"])
        #expect(purchases.first?.value(forKey: "client") == .object(ann.objectID))
        guard case .objects(let annPurchases) = ann.value(forKey: "purchases") else { Issue.record("no purchases"); return }
        #expect(Set(annPurchases) == Set(purchases.prefix(2).map(\.objectID)))
    }

    @Test("without its mapping model the same step is inferred and refused for the data it would lose")
    func withoutMappingModelTheStepLosesData() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("store.json")
        let (v1, v2) = try Self.writeShopStore(at: url)
        #expect {
            _ = try Self.migrator(url, [v1, v2], mapping: []).migrate()
        } throws: { error in
            "\(error)".contains("entity Customer: removed with its 2 objects")
        }
    }

    @Test("a mapping model that calls the app's code, names a policy class, does not parse or matches no versions is refused by name")
    func refusalsNameWhatIsRefused() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("store.json")
        let (v1, v2) = try Self.writeShopStore(at: url)
        let bytes = try Data(contentsOf: url)
        let expected = [
            "CallsAppCode": ["mapping model CallsAppCode.xcmappingmodel", "entity Purchase, property \"label\"", "entity mapping OrderToPurchase",
                             "FUNCTION($source, \"labelForMigration\")", "calls \"labelForMigration\" through FUNCTION"],
            "CustomPolicy": ["mapping model CustomPolicy.xcmappingmodel", "entity Purchase", "entity mapping OrderToPurchase",
                             "custom migration policy class PurchaseMigrationPolicy"],
            "DoesNotParse": ["mapping model DoesNotParse.xcmappingmodel", "entity Purchase, property \"price\"",
                             "the value expression $source.priceCents / * 100 does not parse", "offset"],
            "OtherVersions": ["mapping model OtherVersions.xcmappingmodel", "version \"Shop 3\"", "version \"Shop 4\"", "\"Shop\", \"Shop 2\""],
        ]
        for (name, parts) in expected {
            let mapping = try Self.mappingModel(name)
            #expect {
                _ = try Self.migrator(url, [v1, v2], mapping: [mapping]).migrate()
            } throws: { error in
                let message = "\(error)"
                let missing = parts.filter { !message.contains($0) }
                if !missing.isEmpty { Issue.record("\(name): \(missing) not in: \(message)") }
                return error is MigrationError
            }
        }
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test("a mapped step is checked for losses: a source attribute no mapping reads is refused unless accepted")
    func mappedStepLossesAreChecked() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("store.json")
        let (v1, v2) = try Self.writeShopStore(at: url)
        var mapping = try Self.mappingModel("ShopToShop2")
        mapping.entityMappings[1].attributes.removeAll { $0.name == "price" }
        #expect {
            _ = try Self.migrator(url, [v1, v2], mapping: [mapping]).migrate()
        } throws: { error in
            "\(error)".contains("entity Order, attribute \"priceCents\": removed with 3 values")
        }
        let accepted = JSONStoreMigrator(path: url.path, versions: [v1, v2], acceptedLosses: MigrationLossAcceptance(names: ["Order.priceCents"]),
                                         mappingModels: [mapping], versionNames: ["Shop", "Shop 2"], bundleName: "Shop")
        let outcome = try accepted.migrate()
        #expect(outcome.report.contains("\"price\": not filled by the mapping model"), "\(outcome.report)")
    }
}
