import Foundation
import GraphCore
import ServerTestSupport
import Testing
@testable import JSONAtomicStore

/// The other ways an `xcmapping.xml` spells a property mapping, and what else is refused by name.
@Suite("Migration: mapping model variants and refusals")
struct MappingModelVariantTests {
    /// An `xcmapping.xml` of Shop → Shop 2 whose OrderToPurchase mapping has these property objects.
    static func xml(orderProperties: String, customerPolicy: String = "") -> Data {
        Data("""
            <?xml version="1.0" standalone="yes"?>
            <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">
            <database>
                <object type="XDDEVATTRIBUTEMAPPING" id="z3">
                    <attribute name="name" type="string">fullName</attribute>
                    <attribute name="valueexpressionasstring" type="string">$source.name</attribute>
                </object>
                <object type="XDDEVRELATIONSHIPMAPPING" id="z4">
                    <attribute name="name" type="string">purchases</attribute>
                    <attribute name="sourcekeypath" type="string">orders</attribute>
                    <attribute name="sourcemappingname" type="string">OrderToPurchase</attribute>
                </object>
                <object type="XDDEVENTITYMAPPING" id="z2">
                    <attribute name="sourcename" type="string">Customer</attribute>
                    <attribute name="destinationname" type="string">Client</attribute>
                    <attribute name="mappingtypename" type="string">Undefined</attribute>
                    <attribute name="mappingnumber" type="int16">1</attribute>\(customerPolicy)
                    <relationship name="attributemappings" type="0/0" destination="XDDEVATTRIBUTEMAPPING" idrefs="z3"></relationship>
                    <relationship name="relationshipmappings" type="0/0" destination="XDDEVRELATIONSHIPMAPPING" idrefs="z4"></relationship>
                </object>
                \(orderProperties)
                <object type="XDDEVENTITYMAPPING" id="z5">
                    <attribute name="sourcename" type="string">Order</attribute>
                    <attribute name="destinationname" type="string">Purchase</attribute>
                    <attribute name="mappingnumber" type="int16">2</attribute>
                </object>
                <object type="XDDEVMAPPINGMODEL" id="z1">
                    <attribute name="sourcemodelpath" type="string">Shop.xcdatamodeld/Shop.xcdatamodel</attribute>
                    <attribute name="destinationmodelpath" type="string">Shop.xcdatamodeld/Shop 2.xcdatamodel</attribute>
                    <relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" idrefs="z2 z5"></relationship>
                </object>
            </database>
            """.utf8)
    }

    static func property(_ id: String, _ kind: String, _ name: String, _ body: String) -> String {
        """
        <object type="XDDEV\(kind)MAPPING" id="\(id)">
            <attribute name="name" type="string">\(name)</attribute>
            \(body)
            <relationship name="entitymapping" type="1/1" destination="XDDEVENTITYMAPPING" idrefs="z5"></relationship>
        </object>
        """
    }

    static func versions() throws -> (ObjectModel, ObjectModel) {
        let bundle = try ModelBundle(contentsOf: MappingModelMigrationTests.bundleURL)
        return (try #require(bundle.model(named: "Shop")), bundle.current)
    }

    @Test("generated expressions, a relationship by source key path and mapping name, and property objects found by their entity mapping are read and run")
    func generatedAndKeyPathVariants() throws {
        let properties = Self.property("z6", "ATTRIBUTE", "number", #"<attribute name="autogenerateexpression" type="bool">1</attribute>"#)
            + Self.property("z7", "ATTRIBUTE", "price", #"<attribute name="valueexpressionasstring" type="string">$source.priceCents / 100</attribute>"#)
            + Self.property("z8", "RELATIONSHIP", "client",
                            #"<attribute name="sourcekeypath" type="string">customer</attribute><attribute name="sourcemappingname" type="string">CustomerToClient</attribute>"#)
        let mapping = try XcodeMappingModel.read(Self.xml(orderProperties: properties), name: "Variants.xcmappingmodel", file: "xcmapping.xml")
        let order = try #require(mapping.entityMappings.last)
        #expect(order.name == "OrderToPurchase")
        #expect(order.attributes.map(\.value) == [.generated, .expression("$source.priceCents / 100")])
        #expect(order.relationships.map(\.value) == [.relationshipKeyPath("customer", mappingName: "CustomerToClient")])

        let directory = try TemporaryDirectory()
        let url = directory.file("store.json")
        let (v1, v2) = try MappingModelMigrationTests.writeShopStore(at: url)
        let outcome = try MappingModelMigrationTests.migrator(url, [v1, v2], mapping: [mapping]).migrate()
        #expect(outcome.report.contains("\"label\": not filled by the mapping model (nil for every object)"), "\(outcome.report)")
        let after = try OpenStore(url, model: v2, readOnly: true)
        defer { after.close() }
        let purchases = after.store.cacheNodes().filter { $0.objectID.entityName == "Purchase" }
        #expect(Set(purchases.compactMap { $0.value(forKey: "number") }) == [.int(1), .int(2), .int(3)])
        #expect(purchases.allSatisfy { if case .object = $0.value(forKey: "client") { true } else { false } })
    }

    @Test("an archived value expression, $manager, a missing entity mapping, an unknown property, a source filter and two mappings for one step are refused by name")
    func otherRefusals() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("store.json")
        let (v1, v2) = try MappingModelMigrationTests.writeShopStore(at: url)
        let cases: [(String, [String])] = [
            (Self.property("z6", "ATTRIBUTE", "price", #"<attribute name="valueexpressiondata" type="binary">YnBsaXN0MDA=</attribute>"#),
             ["property \"price\"", "valueexpressiondata"]),
            (Self.property("z6", "ATTRIBUTE", "price", #"<attribute name="valueexpressionasstring" type="string">$manager.sourceContext</attribute>"#),
             ["property \"price\"", "$manager"]),
            (Self.property("z6", "RELATIONSHIP", "client",
                           #"<attribute name="valueexpressionasstring" type="string">FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:" , "PersonToClient", $source.customer)</attribute>"#),
             ["property \"client\"", "entity mapping PersonToClient"]),
            (Self.property("z6", "ATTRIBUTE", "weight", #"<attribute name="valueexpressionasstring" type="string">$source.number</attribute>"#),
             ["entity Purchase, property \"weight\"", "the destination entity does not have"]),
        ]
        for (properties, parts) in cases {
            let mapping = try XcodeMappingModel.read(Self.xml(orderProperties: properties), name: "Refused.xcmappingmodel", file: "xcmapping.xml")
            #expect {
                _ = try MappingModelMigrationTests.migrator(url, [v1, v2], mapping: [mapping]).plan()
            } throws: { error in
                let message = "\(error)"
                let missing = (["mapping model Refused.xcmappingmodel", "entity mapping OrderToPurchase"] + parts).filter { !message.contains($0) }
                if !missing.isEmpty { Issue.record("\(missing) not in: \(message)") }
                return error is MigrationError
            }
        }
        let filtered = try XcodeMappingModel.read(
            Self.xml(orderProperties: "", customerPolicy: #"<attribute name="sourcefilterpredicatestring" type="string">name != nil</attribute>"#),
            name: "Filtered.xcmappingmodel", file: "xcmapping.xml")
        #expect {
            _ = try MappingModelMigrationTests.migrator(url, [v1, v2], mapping: [filtered]).plan()
        } throws: { error in
            "\(error)".contains("entity Client: entity mapping CustomerToClient: takes its objects by the filter predicate name != nil")
        }
        let good = try MappingModelMigrationTests.mappingModel("ShopToShop2")
        var twin = good
        twin.name = "Twin.xcmappingmodel"
        #expect(throws: MigrationError.mappingModelsConflict(first: "ShopToShop2.xcmappingmodel", second: "Twin.xcmappingmodel",
                                                             source: "Shop", destination: "Shop 2")) {
            _ = try MappingModelMigrationTests.migrator(url, [v1, v2], mapping: [good, twin]).plan()
        }
    }
}
