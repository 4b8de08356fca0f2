import Foundation
import GraphCore
import JSONAtomicStore
import ServerTestSupport
import Testing

@Suite("Migration: docserver migrate with mapping models")
struct MigrationMappingModelCommandTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("JSONAtomicStoreTests/Fixtures/mapping")

    /// A store of the bundle's first version (two customers, three orders) at `url`.
    static func writeStore(at url: URL, bundle: URL) throws {
        let v1 = try #require(try ModelBundle(contentsOf: bundle).model(named: "Shop"))
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
    }

    @Test("migrate runs the step with the mapping model beside the bundle, and the migrated store passes check")
    func mappingModelBesideTheBundle() throws {
        let directory = try TemporaryDirectory()
        let bundle = directory.file("Shop.xcdatamodeld")
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("Shop.xcdatamodeld"), to: bundle)
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("models/ShopToShop2.xcmappingmodel"),
                                         to: directory.file("ShopToShop2.xcmappingmodel"))
        let store = directory.file("store.json")
        try Self.writeStore(at: store, bundle: bundle)
        let result = try runDocServer(["migrate", "--store", store.path, "--model", bundle.path])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("entity Client (2 objects):"), "\(result.output)")
        #expect(result.output.contains("renamed from Customer (mapping model ShopToShop2.xcmappingmodel)"))
        #expect(result.output.contains("\"label\": computed by the mapping model's FUNCTION($source.customer.name, 'uppercaseString')"))
        let check = try runDocServer(["check", "--store", store.path, "--model", bundle.appendingPathComponent("Shop 2.xcdatamodel").path])
        #expect(check.status == 0, "\(check.errors)")
        #expect(check.output.contains("5 objects (Client 2, Purchase 3)"), "\(check.output)")
    }

    @Test("migrate --mapping-model refuses, with exit status 1 and by name, a mapping that cannot run here, and writes nothing")
    func refusedMappingModels() throws {
        let directory = try TemporaryDirectory()
        let bundle = Self.fixtures.appendingPathComponent("Shop.xcdatamodeld")
        let store = directory.file("store.json")
        try Self.writeStore(at: store, bundle: bundle)
        let bytes = try Data(contentsOf: store)
        let expected = [
            "CallsAppCode": ["CallsAppCode.xcmappingmodel", "entity Purchase, property \"label\"", "FUNCTION($source, \"labelForMigration\")"],
            "CustomPolicy": ["CustomPolicy.xcmappingmodel", "entity Purchase", "PurchaseMigrationPolicy"],
            "DoesNotParse": ["DoesNotParse.xcmappingmodel", "property \"price\"", "$source.priceCents / * 100 does not parse"],
            "OtherVersions": ["OtherVersions.xcmappingmodel", "version \"Shop 3\"", "version \"Shop 4\""],
        ]
        for (name, parts) in expected {
            let result = try runDocServer(["migrate", "--store", store.path, "--model", bundle.path,
                                           "--mapping-model", Self.fixtures.appendingPathComponent("models/\(name).xcmappingmodel").path])
            #expect(result.status == 1, "\(name): \(result.errors)")
            for part in parts { #expect(result.errors.contains(part), "\(name): \(part) not in \(result.errors)") }
        }
        #expect(try Data(contentsOf: store) == bytes)
    }
}
