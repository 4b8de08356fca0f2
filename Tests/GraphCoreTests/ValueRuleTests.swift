import Foundation
import Testing
@testable import GraphCore

/// Minimum, maximum and pattern rules of attributes (Core Data's `minValueString`,
/// `maxValueString`, `regularExpressionString`), checked when an object is saved.
@Suite struct ValueRuleTests {
    static func model() throws -> ObjectModel {
        var title = AttributeDescription("title", .string, isOptional: true)
        title.minValue = .int(2)
        title.maxValue = .int(5)
        title.regularExpression = "[a-z]+"
        var pages = AttributeDescription("pages", .int16, isOptional: true)
        pages.minValue = .int(1)
        pages.maxValue = .int(500)
        var rating = AttributeDescription("rating", .double, isOptional: true)
        rating.maxValue = .double(5)
        var price = AttributeDescription("price", .decimal, isOptional: true)
        price.minValue = .decimal(0)
        var published = AttributeDescription("published", .date, isOptional: true)
        published.minValue = .date(Date(timeIntervalSinceReferenceDate: 0))
        var cover = AttributeDescription("cover", .binary, isOptional: true)
        cover.maxValue = .int(3)
        return try ObjectModel(entities: [
            EntityDescription("Book", attributes: [title, pages, rating, price, published, cover]),
        ])
    }

    private func failures(_ values: [String: Value]) throws -> [ValidationFailure] {
        let container = try PersistentContainer.inMemory(model: Self.model())
        let context = container.viewContext
        _ = try context.insert("Book", values: values)
        return context.validationFailures()
    }

    private func reasons(_ values: [String: Value]) throws -> [String: String] {
        var result: [String: String] = [:]
        for failure in try failures(values) {
            if case .ruleBroken(let how) = failure.reason { result[failure.key] = how }
        }
        return result
    }

    @Test func valuesWithinTheirRulesSave() throws {
        #expect(try failures(["title": "abc", "pages": 1, "rating": 5.0, "price": .decimal(0),
                              "published": .date(Date(timeIntervalSinceReferenceDate: 10)), "cover": .binary(Data([1, 2, 3]))]).isEmpty)
        #expect(try failures([:]).isEmpty, "nil is not checked against the rules of an optional attribute")
    }

    @Test func aStringShorterOrLongerThanItsBoundsIsRefused() throws {
        #expect(try reasons(["title": "a"])["title"] == "has 1 characters, fewer than its minimum 2")
        #expect(try reasons(["title": "abcdef"])["title"] == "has 6 characters, more than its maximum 5")
    }

    @Test func aStringLengthCountsUTF16UnitsAsCoreDataDoes() throws {
        #expect(try reasons(["title": "ab😀😀"])["title"] == "has 6 characters, more than its maximum 5")
    }

    @Test func aStringThatDoesNotMatchItsPatternIsRefused() throws {
        #expect(try reasons(["title": "ab1"])["title"] == "does not match the pattern '[a-z]+'")
    }

    @Test func numbersOutsideTheirBoundsAreRefused() throws {
        let found = try reasons(["pages": 0, "rating": 5.5, "price": .decimal(Decimal(string: "-0.01")!)])
        #expect(found["pages"] == "is 0, less than its minimum 1")
        #expect(found["rating"]?.hasPrefix("is 5.5, more than its maximum 5") == true)
        #expect(found["price"]?.contains("less than its minimum 0") == true)
    }

    @Test func datesBeforeTheirMinimumAndDataLongerThanItsMaximumAreRefused() throws {
        let found = try reasons(["published": .date(Date(timeIntervalSinceReferenceDate: -1)), "cover": .binary(Data(count: 4))])
        #expect(found["published"]?.contains("less than its minimum") == true)
        #expect(found["cover"] == "has 4 bytes, more than its maximum 3")
    }

    @Test func theSaveFailsWithTheRuleInItsMessage() throws {
        let container = try PersistentContainer.inMemory(model: Self.model())
        let context = container.viewContext
        _ = try context.insert("Book", values: ["pages": 501])
        #expect { try context.save() } throws: { "\($0)".contains("Book.pages of") && "\($0)".contains("is 501, more than its maximum 500") }
    }

    @Test func rulesThatMakeNoSenseAreRefusedWhenTheModelIsBuilt() {
        var flag = AttributeDescription("flag", .bool)
        flag.minValue = .bool(false)
        #expect { try ObjectModel(entities: [EntityDescription("A", attributes: [flag])]) } throws: {
            "\($0)" == "A.flag: a bool attribute takes no minimum"
        }
        var number = AttributeDescription("n", .int64)
        number.regularExpression = "x"
        #expect { try ObjectModel(entities: [EntityDescription("A", attributes: [number])]) } throws: {
            "\($0)".contains("a pattern applies to string attributes only")
        }
        var text = AttributeDescription("t", .string)
        text.minValue = .int(-1)
        #expect { try ObjectModel(entities: [EntityDescription("A", attributes: [text])]) } throws: {
            "\($0)".contains("is a length")
        }
    }

    @Test func rulesRoundTripThroughTheJSONModelFile() throws {
        let model = try Self.model()
        let again = try ObjectModel(json: model.jsonRepresentation())
        #expect(again.entity(named: "Book")?.ownAttributes == model.entity(named: "Book")?.ownAttributes)
        let container = try PersistentContainer.inMemory(model: again)
        _ = try container.viewContext.insert("Book", values: ["title": "a"])
        #expect(container.viewContext.validationFailures().count == 1)
    }
}
