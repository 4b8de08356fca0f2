import Foundation
import Testing
@testable import GraphCore

/// One row of the predicate table: a format string with its arguments (and variables), the
/// entity it is evaluated on in ``PredicateFixture``, and what it gives: the names of the
/// matching objects, or an error.
struct PredicateCase: Sendable, CustomTestStringConvertible {
    /// An argument; objects are named and looked up in the fixture.
    enum Argument: Sendable {
        case value(PredicateValue)
        case object(String)
        case objects([String])
    }

    enum Outcome: Sendable {
        /// The sorted names of the objects that match.
        case matches([String])
        /// Exactly this error.
        case error(GraphCore.PredicateError)
        /// A syntax error at this offset whose message contains the text.
        case syntaxError(at: Int, expecting: String)
    }

    let format: String
    let arguments: [Argument]
    let variables: [String: Argument]
    let entity: String
    let outcome: Outcome
    let sourceLocation: SourceLocation

    var testDescription: String { "\(entity): \(format)" }

    func resolve(_ argument: Argument, _ fixture: PredicateFixture) -> PredicateValue {
        switch argument {
        case .value(let value): return value
        case .object(let name): return .value(fixture.objects[name].map(Value.object) ?? .null)
        case .objects(let names): return .array(names.map { .value(fixture.objects[$0].map(Value.object) ?? .null) })
        }
    }

    /// Parses the format with the fixture's objects as arguments, and binds the variables.
    func predicate(_ fixture: PredicateFixture) throws -> GraphCore.Predicate {
        let parsed = try GraphCore.Predicate(format: format, arguments: arguments.map { resolve($0, fixture) },
                                             model: fixture.container.model)
        return parsed.withSubstitutionVariables(variables.mapValues { resolve($0, fixture) })
    }
}

/// A row that matches these objects.
func row(_ format: String, args arguments: [PredicateCase.Argument] = [], on entity: String = "Song",
         variables: [String: PredicateCase.Argument] = [:], _ expected: [String],
         sourceLocation: SourceLocation = #_sourceLocation) -> PredicateCase {
    PredicateCase(format: format, arguments: arguments, variables: variables, entity: entity,
                  outcome: .matches(expected.sorted()), sourceLocation: sourceLocation)
}

/// A row that fails with this error.
func failing(_ format: String, args arguments: [PredicateCase.Argument] = [], on entity: String = "Song",
             variables: [String: PredicateCase.Argument] = [:], _ error: GraphCore.PredicateError,
             sourceLocation: SourceLocation = #_sourceLocation) -> PredicateCase {
    PredicateCase(format: format, arguments: arguments, variables: variables, entity: entity, outcome: .error(error),
                  sourceLocation: sourceLocation)
}

/// A row with a syntax error at `offset` whose message mentions `expecting`.
func syntaxError(_ format: String, at offset: Int, expecting: String,
                 sourceLocation: SourceLocation = #_sourceLocation) -> PredicateCase {
    PredicateCase(format: format, arguments: [], variables: [:], entity: "Song",
                  outcome: .syntaxError(at: offset, expecting: expecting), sourceLocation: sourceLocation)
}

extension PredicateCase.Argument: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral
{
    init(stringLiteral value: String) { self = .value(.value(.string(value))) }
    init(integerLiteral value: Int64) { self = .value(.value(.int(value))) }
    init(floatLiteral value: Double) { self = .value(.value(.double(value))) }
    init(booleanLiteral value: Bool) { self = .value(.value(.bool(value))) }
    init(nilLiteral: ()) { self = .value(.value(.null)) }
    init(arrayLiteral elements: PredicateValue...) { self = .value(.array(elements)) }
}

/// Every row of the table, gathered from the files by construct.
enum PredicateTable {
    static let all: [PredicateCase] = literals + arguments + comparisons + strings + collections + compounds
        + keyPaths + aggregates + errors + expressions
}
