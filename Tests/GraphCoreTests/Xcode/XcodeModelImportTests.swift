import Foundation
import Testing
@testable import GraphCore

/// Importing an Xcode model version (`.xcdatamodel`): every element and attribute a
/// `contents` file holds, mapped as `docs/MODEL.md` ("Xcode models") says.
@Suite struct XcodeModelImportTests {
    let imported: ModelImport
    var model: ObjectModel { imported.model }

    init() throws {
        imported = try ObjectModel.importing(contentsOf: XcodeFixtures.everything)
    }

    private func attribute(_ entity: String, _ name: String) throws -> AttributeDescription {
        let entity = try #require(model.entity(named: entity))
        return try #require(entity.ownAttributes.first { $0.name == name })
    }

    private func relationship(_ entity: String, _ name: String) throws -> RelationshipDescription {
        try #require(model.entity(named: entity)?.ownRelationships.first { $0.name == name })
    }

    /// The notes about `subject`.
    private func notes(about subject: String) -> [ModelImportNote] {
        imported.notes.filter { $0.subject == subject }
    }

    @Test func everyAttributeTypeMapsToItsGraphCoreType() throws {
        let expected: [(String, AttributeType)] = [
            ("pages", .int16), ("words", .int32), ("isbn13", .int64), ("price", .decimal), ("rating", .double),
            ("weight", .float), ("inPrint", .bool), ("published", .date), ("cover", .binary), ("identifier", .uuid),
            ("link", .uri), ("color", .binary), ("searchTitle", .string), ("self", .uri),
        ]
        for (name, type) in expected {
            #expect(try attribute("Book", name).type == type, "Book.\(name)")
        }
        #expect(try attribute("Item", "title").type == .string)
    }

    @Test func optionalIsReadAndAbsentMeansRequired() throws {
        #expect(try attribute("Item", "title").isOptional == false)
        #expect(try attribute("Item", "code").isOptional == true)
        #expect(try relationship("Chapter", "book").isOptional == false)
        #expect(try relationship("Book", "author").isOptional == true)
    }

    @Test func defaultValuesAreReadInEverySpelling() throws {
        #expect(try attribute("Item", "title").defaultValue == .string("untitled"))
        #expect(try attribute("Book", "pages").defaultValue == .int(1))
        #expect(try attribute("Book", "words").defaultValue == .int(0))  // "0.0" on an integer
        #expect(try attribute("Book", "price").defaultValue == .decimal(Decimal(string: "9.99")!))
        #expect(try attribute("Book", "rating").defaultValue == .double(2.5))
        #expect(try attribute("Book", "weight").defaultValue == .double(1))
        #expect(try attribute("Book", "inPrint").defaultValue == .bool(true))  // YES
        #expect(try attribute("Book", "signed").defaultValue == .bool(false))  // 0
        #expect(try attribute("Book", "published").defaultValue == .date(Date(timeIntervalSinceReferenceDate: 0)))
        #expect(try attribute("Book", "identifier").defaultValue == .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))
        #expect(try attribute("Book", "link").defaultValue == .uri(URL(string: "https://example.com/book")!))
    }

    @Test func minimumMaximumAndPatternAreKept() throws {
        let title = try attribute("Item", "title")
        #expect(title.minValue == .int(1) && title.maxValue == .int(10) && title.regularExpression == "[a-z ]+")
        let pages = try attribute("Book", "pages")
        #expect(pages.minValue == .int(1) && pages.maxValue == .int(5000))
        let rating = try attribute("Book", "rating")
        #expect(rating.minValue == .double(0) && rating.maxValue == .double(5))
        let published = try attribute("Book", "published")
        #expect(published.minValue == .date(Date(timeIntervalSinceReferenceDate: -3_187_296_000)))
        #expect(published.maxValue == .date(Date(timeIntervalSinceReferenceDate: 1_000_000_000)))
        #expect(try attribute("Book", "cover").maxValue == .int(1024))
    }

    @Test func transformableIsBinaryWithItsTransformerAndClassKept() throws {
        let color = try attribute("Book", "color")
        #expect(color.type == .binary)
        #expect(color.valueTransformerName == "NSSecureUnarchiveFromData")
        #expect(color.customClassName == "UIColor")
    }

    @Test func transientAttributesAreInTheModelButNotAmongTheStoredProperties() throws {
        let book = try #require(model.entity(named: "Book"))
        #expect(book.transientAttributes.map(\.name) == ["isOpen", "scratch"])
        #expect(book.property(named: "isOpen") == nil)
        #expect(book.property(named: "scratch") == nil)
        #expect(try attribute("Book", "isOpen").isTransient)
        #expect(try attribute("Book", "isOpen").defaultValue == .bool(false))
    }

    @Test func derivedAttributesAreStoredPlainlyWithTheirExpressionAndAWarning() throws {
        #expect(try attribute("Book", "searchTitle").derivationExpression == "canonical:(title)")
        #expect(notes(about: "Book.searchTitle").contains { $0.severity == .warning && $0.line == 39 && $0.message.contains("not compute") })
    }

    @Test func anObjectIDAttributeIsAURIWithAWarning() throws {
        #expect(notes(about: "Book.self").contains { $0.line == 40 && $0.message.contains("uri") })
    }

    @Test func relationshipsKeepToManyOrderDeleteRuleAndCounts() throws {
        let chapters = try relationship("Book", "chapters")
        #expect(chapters.isToMany && chapters.isOrdered && chapters.deleteRule == .cascade)
        #expect(chapters.minCount == 1 && chapters.maxCount == 99 && chapters.inverse == "book")
        let author = try relationship("Book", "author")
        #expect(!author.isToMany && author.deleteRule == .nullify && author.minCount == nil && author.maxCount == nil)
        #expect(try relationship("Author", "books").deleteRule == .deny)
        #expect(try relationship("Book", "shelf").deleteRule == .noAction)
    }

    @Test func aRelationshipWithoutInverseIsKeptOneSidedWithAWarning() throws {
        #expect(try relationship("Book", "shelf").inverse == nil)
        #expect(notes(about: "Book.shelf").contains { $0.line == 47 && $0.message.contains("no inverse") })
    }

    @Test func parentsAndAbstractEntitiesAreKept() throws {
        let item = try #require(model.entity(named: "Item"))
        let book = try #require(model.entity(named: "Book"))
        #expect(item.isAbstract && !book.isAbstract && book.parentName == "Item")
        #expect(book.property(named: "title") != nil)
    }

    @Test func uniquenessConstraintsAndFetchIndexesAreKeptAsData() throws {
        let item = try #require(model.entity(named: "Item"))
        #expect(item.uniquenessConstraints == [["title", "code"]])
        #expect(item.fetchIndexes == [
            FetchIndexDescription(name: "byTitle", elements: [.init(.property("title")), .init(.property("code"), ascending: false)]),
            FetchIndexDescription(name: "byLength", elements: [.init(.expression("length:(title)"))]),
        ])
        let author = try #require(model.entity(named: "Author"))
        #expect(author.fetchIndexes == [FetchIndexDescription(name: "compoundIndex1", elements: [.init(.property("name"))])])
    }

    @Test func userInfoIsKeptOnTheModelEntitiesAndProperties() throws {
        #expect(model.userInfo == ["schema": "7"])
        #expect(model.entity(named: "Item")?.userInfo == ["owner": "catalog"])
        #expect(try attribute("Author", "name").userInfo == ["hint": "full name"])
        #expect(try relationship("Book", "author").userInfo == ["label": "written by"])
    }

    @Test func renamingIdentifiersAndVersionHashModifiersAreKept() throws {
        let item = try #require(model.entity(named: "Item"))
        #expect(item.renamingIdentifier == "Thing" && item.versionHashModifier == "v2")
        #expect(try attribute("Item", "code").renamingIdentifier == "oldCode")
        #expect(try attribute("Item", "code").versionHashModifier == "2")
        #expect(try relationship("Book", "author").renamingIdentifier == "writer")
        #expect(try relationship("Book", "author").versionHashModifier == "1")
    }

    @Test func configurationsAreKept() {
        #expect(model.configurations == ["Library": ["Book", "Author", "Chapter"], "Local": ["Shelf"]])
    }

    @Test func fetchRequestTemplatesAreParsedAndAnUnparsableOneIsReported() throws {
        let template = try #require(model.fetchRequestTemplates["shortBooks"])
        #expect(template.entityName == "Book" && template.fetchLimit == 20)
        #expect(template.predicate == (try Predicate(format: "pages < 100 AND title BEGINSWITH[c] $prefix")))
        #expect(model.fetchRequestTemplates["broken"] == nil)
        #expect(notes(about: "fetch request broken").contains { $0.line == 74 && $0.message.contains("does not parse") })
    }

    @Test func fetchedPropertiesAndUnknownElementsAreReportedByNameAndLine() {
        #expect(notes(about: "Book.recentChapters").contains { $0.line == 48 && $0.message.contains("fetched properties are not supported") })
        #expect(notes(about: "Shelf").contains { $0.line == 71 && $0.message.contains("<mysteryElement>") })
    }

    @Test func whatIsIgnoredOnPurposeRaisesNoNote() {
        // representedClassName, syncable, codeGenerationType, usesScalarValueType,
        // spotlightIndexingEnabled, the diagram's <elements>: nothing a store holds. elementID is
        // Xcode's "Renaming ID" (issue 40): read, and noted only where it contradicts a
        // renamingIdentifier on the same element (Item and Item.code in this fixture).
        #expect(imported.notes.allSatisfy { !$0.message.contains("representedClassName") })
        let renamingNotes = imported.notes.filter { $0.message.contains("elementID") }
        #expect(renamingNotes.map(\.line) == [3, 5], "\(renamingNotes)")
        #expect(renamingNotes.allSatisfy { $0.message.contains("differ; the renamingIdentifier is used") })
        #expect(imported.notes.count == 8, "\(imported.notes.map(\.description).joined(separator: "\n"))")
    }

    @Test func theVersionHashModifierChangesTheHashExactlyWhereItIsSet() throws {
        let xml = { (modifier: String) in """
            <model><entity name="A" \(modifier)><attribute name="x" optional="YES" attributeType="String"/></entity>
            <entity name="B"><attribute name="y" optional="YES" attributeType="String"/></entity></model>
            """ }
        let plain = try XcodeFixtures.importing(xml("")).model
        let modified = try XcodeFixtures.importing(xml(#"versionHashModifier="2""#)).model
        #expect(plain.entityVersionHashes["A"] != modified.entityVersionHashes["A"])
        #expect(plain.entityVersionHashes["B"] == modified.entityVersionHashes["B"])
    }

    @Test func aModelWithoutNewKeysHashesAsBefore() throws {
        // The hash input is unchanged for models that use none of the new keys: stores keep opening.
        let entity = EntityDescription("A", attributes: [AttributeDescription("x", .string)])
        let model = try ObjectModel(entities: [entity])
        #expect(model.entityVersionHashes["A"] == SHA256.hex(of: "entity A\nparent -\nabstract false\nattribute x string optional=false"))
    }

    @Test func theImportedModelRoundTripsThroughTheJSONModelFile() throws {
        let json = model.jsonRepresentation()
        let again = try ObjectModel(json: json)
        #expect(again.jsonRepresentation() == json)
        #expect(again.versionHash == model.versionHash)
        #expect(again.entity(named: "Book")?.transientAttributes.map(\.name) == ["isOpen", "scratch"])
        #expect(again.fetchRequestTemplates["shortBooks"]?.predicate == model.fetchRequestTemplates["shortBooks"]?.predicate)
    }

    @Test func contentsOfAcceptsTheFolderAndTheContentsFile() throws {
        let fromFolder = try ObjectModel(contentsOf: XcodeFixtures.everything)
        let fromFile = try ObjectModel(contentsOf: XcodeFixtures.everything.appendingPathComponent("contents"))
        #expect(fromFolder.versionHash == model.versionHash && fromFile.versionHash == model.versionHash)
    }
}
