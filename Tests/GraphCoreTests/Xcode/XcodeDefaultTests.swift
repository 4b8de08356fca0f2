import Foundation
import Testing
@testable import GraphCore

/// Default values in the spellings Xcode accepts, read as Core Data reads them, each coerced
/// one with a warning naming it.
@Suite("Xcode models: defaults Xcode accepts")
struct XcodeDefaultTests {
    static let imported = Result { try ObjectModel.importing(contentsOf: XcodeFixtures.own.appendingPathComponent("Defaults.xcdatamodel")) }

    func defaultValue(_ name: String) throws -> Value? {
        try #require(try Self.imported.get().model.entity(named: "Settings")?.property(named: name)?.attribute).defaultValue
    }

    func warned(_ name: String) throws -> Bool {
        try Self.imported.get().notes.contains { $0.severity == .warning && $0.subject == "Settings.\(name)" }
    }

    @Test("NO and YES on Integer 16, 32 and 64 attributes are 0 and 1, with a warning")
    func yesAndNoOnIntegers() throws {
        #expect(try defaultValue("int64No") == .int(0))
        #expect(try defaultValue("int32Yes") == .int(1))
        #expect(try defaultValue("int16No") == .int(0))
        #expect(try warned("int64No") && warned("int32Yes") && warned("int16No"))
    }

    @Test("a number with a fraction on an integer attribute is cut toward zero with a warning; 3.0 is 3 without one")
    func fractionsOnIntegers() throws {
        #expect(try defaultValue("int64Fraction") == .int(2))
        #expect(try warned("int64Fraction"))
        #expect(try defaultValue("int32Decimal") == .int(3))
        #expect(try !warned("int32Decimal"))
    }

    @Test("numbers on Booleans are read as NSString.boolValue reads them: 0.0 false, 1, 2 and 1.0 true")
    func numbersOnBooleans() throws {
        #expect(try defaultValue("boolZeroPointZero") == .bool(false))
        #expect(try warned("boolZeroPointZero"))
        #expect(try defaultValue("boolOne") == .bool(true))
        #expect(try !warned("boolOne"))
        #expect(try defaultValue("boolTwo") == .bool(true))
        #expect(try defaultValue("boolOnePointZero") == .bool(true))
        #expect(try defaultValue("boolYes") == .bool(true))
        #expect(try !warned("boolYes"))
        #expect(try defaultValue("boolY") == .bool(true))
    }

    @Test("NO and YES on Double, Float and Decimal attributes are 0 and 1, with a warning")
    func yesAndNoOnOtherNumbers() throws {
        #expect(try defaultValue("doubleNo") == .double(0))
        #expect(try defaultValue("floatYes") == .double(1))
        #expect(try defaultValue("decimalNo") == .decimal(0))
        #expect(try warned("doubleNo") && warned("floatYes") && warned("decimalNo"))
    }

    @Test("an empty default on a number is no default, with a warning")
    func emptyDefault() throws {
        #expect(try defaultValue("int64Empty") == nil)
        #expect(try warned("int64Empty"))
    }

    @Test("a word that is no spelling of a value stays an error naming it")
    func wordsStayErrors() {
        #expect(throws: ModelError.self) {
            try XcodeFixtures.importing("""
                <model><entity name="A"><attribute name="b" optional="YES" attributeType="Boolean" defaultValueString="maybe"/></entity></model>
                """)
        }
        #expect(throws: ModelError.self) {
            try XcodeFixtures.importing("""
                <model><entity name="A"><attribute name="n" optional="YES" attributeType="Integer 64" defaultValueString="many"/></entity></model>
                """)
        }
    }
}
