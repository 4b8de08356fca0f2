import Foundation
import Testing
@testable import GraphCore

/// Xcode model files that cannot be used: each error names the file, the line and what is wrong.
@Suite struct XcodeModelErrorTests {
    static let cases: [(file: String, line: Int, message: String)] = [
        ("broken-xml", 6, "not well-formed XML"),
        ("unknown-type", 4, "unknown attributeType \"Integer 128\""),
        ("missing-destination", 5, "destinationEntity 'B' is not an entity of the model"),
        ("no-destination", 4, "has no destinationEntity"),
        ("unknown-parent", 3, "parentEntity 'Base' is not an entity of the model"),
        ("bad-default", 4, "defaultValueString=\"70000\" is not a valid Integer 16"),
        ("bad-boolean", 4, "defaultValueString=\"maybe\" is not a valid Boolean"),
        ("duplicate-entity", 5, "entity 'A' is defined twice (first on line 3)"),
        ("duplicate-property", 5, "property 'x' is defined twice in entity 'A' (first on line 4)"),
        ("bad-deletion-rule", 4, "unknown deletionRule \"Explode\""),
        ("undefined-stored", 4, "Undefined is only allowed on a transient attribute"),
        ("unknown-inverse", 4, "inverseName 'nothing' is not a relationship of B"),
        ("bad-pattern", 4, "the pattern '(a' is not a regular expression"),
        ("crossed-bounds", 4, "the minimum 10 is greater than the maximum 2"),
        ("bad-count", 4, "minCount=\"two\" is not a whole number"),
        ("bad-date", 4, "defaultDateTimeInterval=\"soon\" is not a number of seconds"),
        ("not-a-model", 2, "the root element is <plist>, not <model>"),
        ("parent-cycle", 3, "form a cycle of parents"),
        ("not-utf8", 4, "the file is not UTF-8 text"),
        ("latin1", 1, "declares encoding \"ISO-8859-1\""),
        ("processing-instruction", 3, "a processing instruction '<?'"),
        ("doctype", 2, "a document type declaration '<!D…'"),
    ]

    @Test(arguments: cases.indices)
    func aBadModelFileIsRefusedWithItsLineAndWhy(_ index: Int) {
        let (name, line, message) = Self.cases[index]
        let url = XcodeFixtures.bad.appendingPathComponent("\(name).contents")
        let errors = XcodeFixtures.importErrors(url)
        #expect(errors.contains { $0.line == line && $0.message.contains(message) && $0.severity == .error },
                "\(name): \(errors.map(\.description))")
    }

    @Test func theErrorNamesTheFileAndLineAsCompilersDo() throws {
        let url = XcodeFixtures.bad.appendingPathComponent("unknown-type.contents")
        do {
            _ = try ObjectModel(contentsOf: url)
            Issue.record("the model loaded")
        } catch {
            #expect(error.description.contains("\(url.path):4: error: A.x: unknown attributeType"))
        }
    }

    @Test func everyErrorOfAFileIsReportedNotOnlyTheFirst() throws {
        let xml = """
            <model>
                <entity name="A">
                    <attribute name="x" attributeType="Nope"/>
                    <relationship name="b" deletionRule="Nullify" destinationEntity="Missing"/>
                </entity>
            </model>
            """
        #expect(throws: ModelError.self) { try XcodeFixtures.importing(xml) }
        do {
            _ = try XcodeFixtures.importing(xml)
        } catch {
            guard case .unusableXcodeModel(_, let errors) = error as? ModelError else { Issue.record("\(error)"); return }
            #expect(errors.map(\.line) == [3, 4])
        }
    }

    @Test func anEntityExpansionBombIsRefusedBeforeAnythingExpands() throws {
        var xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE model [\n<!ENTITY a \"aaaaaaaaaa\">\n"
        for level in 1...9 { xml += "<!ENTITY \(Character(UnicodeScalar(97 + level)!)) \"" + String(repeating: "&\(Character(UnicodeScalar(96 + level)!));", count: 10) + "\">\n" }
        xml += "]>\n<model><entity name=\"&j;\"/></model>\n"
        #expect { try XcodeFixtures.importing(xml) } throws: { "\($0)".contains("a document type declaration") }
    }

    @Test(arguments: ["<?xmlcodeGeneration?>\n<model/>", "<?xml?>\n<model/>", "<?xml-stylesheet?>\n<model/>",
                      "\u{FEFF}<?x?>\n<model/>", "<?xmlx version=\"1.0\"?>\n<model/>"])
    func aProcessingInstructionAtTheStartThatIsNotTheDeclarationIsRefused(_ xml: String) {
        // Foundation's XMLParser crashes on a processing instruction without data; one at the
        // very start must not pass for the XML declaration.
        #expect { try XcodeFixtures.importing(xml) } throws: { "\($0)".contains("a processing instruction '<?' that is not the XML declaration") }
    }

    @Test(arguments: ["<?xml version=\"1.0\"?>\n<model/>", "<?xml\tversion=\"1.0\"?><model/>", "\u{FEFF}<?xml\nversion=\"1.0\"?>\n<model/>"])
    func theXMLDeclarationWithAnyBlankIsRead(_ xml: String) throws {
        _ = try XcodeFixtures.importing(xml)
    }

    @Test func deeplyNestedElementsAreRefused() {
        let xml = String(repeating: "<model>", count: 200) + String(repeating: "</model>", count: 200)
        #expect(throws: ModelError.self) { try XcodeFixtures.importing(xml) }
    }
}
