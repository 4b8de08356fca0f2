import Foundation
import Testing
@testable import GraphCore

/// The real models other projects wrote with Xcode (`../shared/fixtures/xcdatamodel`, read in
/// place): every one imports, and what it says survives.
@Suite struct RealXcodeModelTests {
    @Test func everyRealContentsFileImportsWithoutErrors() throws {
        let files = try XcodeFixtures.realContents()
        #expect(files.count >= 8)
        for file in files {
            let imported = try ObjectModel.importing(contentsOf: file)
            #expect(!imported.model.entities.isEmpty, "\(file.lastPathComponent)")
            #expect(imported.notes.allSatisfy { $0.severity == .warning && $0.line != nil })
        }
    }

    @Test func everyRealBundleImportsWithEveryVersion() throws {
        let bundles = try XcodeFixtures.realBundles()
        #expect(bundles.count == 3)
        for url in bundles {
            let bundle = try ModelBundle(contentsOf: url)
            #expect(bundle.versions.count >= 2, "\(url.lastPathComponent)")
            #expect(bundle.versions.contains { $0.name == bundle.currentName })
        }
    }

    @Test func theRealBundlesCurrentVersionsAreTheOnesXcodeNamed() throws {
        let bundles = XcodeFixtures.real.appendingPathComponent("bundles")
        let sample = try ModelBundle(contentsOf: bundles.appendingPathComponent("SampleModel.xcdatamodeld"))
        #expect(sample.versions.map(\.name) == ["SampleModel", "SampleModel2", "SampleModel3"])
        #expect(sample.currentName == "SampleModel")
    }

    @Test func coreDataPlusSampleModelSpotCheck() throws {
        let url = XcodeFixtures.real.appendingPathComponent("alemar11__CoreDataPlus__SampleModel.contents.xml")
        let model = try ObjectModel(contentsOf: url)
        let car = try #require(model.entity(named: "Car"))
        let color = try #require(car.ownAttributes.first { $0.name == "color" })
        #expect(color.type == .binary && color.valueTransformerName == "ColorTransformer" && color.customClassName == "Color")
        #expect(car.transientAttributes.map(\.name) == ["currentDrivingSpeed"])
        #expect(car.property(named: "numberPlate")?.attribute?.isOptional == false)
        #expect(car.uniquenessConstraints == [["numberPlate"]])
        let owner = try #require(car.property(named: "owner")?.relationship)
        #expect(owner.destination == "Person" && owner.inverse == "cars" && !owner.isToMany && owner.isOptional)
        let person = try #require(model.entity(named: "Person"))
        #expect(person.property(named: "id")?.attribute?.type == .uuid)
        #expect(person.uniquenessConstraints == [["firstName", "lastName"]])
        #expect(person.property(named: "cars")?.relationship?.isToMany == true)
        #expect(model.entity(named: "ExpensiveSportCar")?.parent?.name == "SportCar")
        #expect(model.entity(named: "ExpensiveSportCar")?.property(named: "numberPlate") != nil)
        #expect(model.entity(named: "ExpensiveSportCar")?.property(named: "isLimitedEdition")?.attribute?.defaultValue == .bool(false))
    }

    /// Entity, attribute and relationship names of a contents file, counted straight from the XML text.
    private func counts(in url: URL) throws -> (entities: Int, attributes: Int, relationships: Int) {
        let text = try String(contentsOf: url, encoding: .utf8)
        func count(_ tag: String) -> Int { text.components(separatedBy: "<\(tag) ").count - 1 }
        return (count("entity"), count("attribute"), count("relationship"))
    }

    @Test func everyRealModelKeepsEveryEntityAttributeAndRelationship() throws {
        for file in try XcodeFixtures.realContents() {
            let imported = try ObjectModel.importing(contentsOf: file)
            let expected = try counts(in: file)
            let model = imported.model
            let attributes = model.entities.reduce(0) { $0 + $1.ownAttributes.count }
            let relationships = model.entities.reduce(0) { $0 + $1.ownRelationships.count }
            let leftOut = imported.notes.filter { $0.message.contains("left out") && $0.message.contains("relationship") }.count
            #expect(model.entities.count == expected.entities, "\(file.lastPathComponent)")
            #expect(attributes == expected.attributes, "\(file.lastPathComponent)")
            #expect(relationships + leftOut == expected.relationships, "\(file.lastPathComponent)")
        }
    }

    @Test func duckDuckGoBookmarksKeepTheirFetchIndexesAndHashModifiers() throws {
        let url = XcodeFixtures.real.appendingPathComponent("duckduckgo__BrowserServicesKit__BookmarksModel.contents.xml")
        let text = try String(contentsOf: url, encoding: .utf8)
        let model = try ObjectModel(contentsOf: url)
        let indexes = model.entities.flatMap(\.fetchIndexes)
        #expect(indexes.count == text.components(separatedBy: "<fetchIndex ").count - 1)
        let modified = model.entities.flatMap(\.ownAttributes).filter { $0.versionHashModifier != nil }
        #expect(modified.count == text.components(separatedBy: "versionHashModifier=").count - 1)
    }

    @Test func mogeneratorsFetchRequestTemplatesParse() throws {
        let url = XcodeFixtures.real.appendingPathComponent("rentzsch__mogenerator__test.contents.xml")
        let model = try ObjectModel(contentsOf: url)
        #expect(model.fetchRequestTemplates["byHumanName"]?.predicate == (try Predicate(format: "humanName == $humanName")))
        #expect(model.fetchRequestTemplates["allHumans"]?.predicate == nil)
    }
}
