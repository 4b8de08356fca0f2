import Foundation

/// A mapping model's value expression that computes an attribute from the source object, in
/// the NSExpression language GraphCore evaluates (`docs/PREDICATES.md`): `$source.key.path`
/// (through to-one relationships), constants, arithmetic (`$source.price * 100`), built-in
/// functions (`uppercase:($source.name)`, `FUNCTION($source.name, 'uppercaseString')`) and
/// `CAST`. Anything else is refused when the mapping model is read against its two models:
/// `FUNCTION($source, "selector")` and other calls into the app's code, `$manager` and the
/// other migration variables, subqueries, aggregates, `TERNARY`.
public struct MappingExpression: Sendable, Hashable, CustomStringConvertible {
    /// The expression as the mapping model writes it.
    public let text: String
    /// The parsed expression.
    let expression: Expression

    /// The text as written.
    public var description: String { text }

    /// What a property mapping's value expression is, for a destination property.
    enum Meaning {
        /// `$source.key` (or Core Data's `destinationInstancesForEntityMappingNamed:sourceInstances:`
        /// of `$source.key`): the source property's values, carried as a lightweight step carries them.
        case sourceProperty(String)
        /// A value computed from the source object.
        case computed(MappingExpression)
    }

    /// The selector Core Data's generated relationship mappings call on the migration manager.
    static let destinationInstances = "destinationInstancesForEntityMappingNamed:sourceInstances:"

    /// Reads `text` as the value expression of `property`, evaluated on objects of `source`.
    ///
    /// - Parameter entityMappings: The names of the mapping model's entity mappings (a
    ///   relationship mapping names the one that carries its objects).
    /// - Returns: the meaning, or why it cannot be run here (naming what is refused).
    static func meaning(of text: String, for property: PropertyDescription, source: EntityDescription,
                        in model: ObjectModel, entityMappings: Set<String>) -> Result<Meaning, Refusal> {
        if let (mappingName, key) = destinationInstancesCall(text) {
            guard entityMappings.contains(mappingName) else {
                return .failure(Refusal("names the entity mapping \(mappingName), which the mapping model does not have"))
            }
            return .success(.sourceProperty(key)).flatMap { check($0, property: property, source: source) }
        }
        var parser = PredicateParser(format: text, arguments: [], model: nil)
        let expression: Expression
        do {
            expression = try parser.parseExpression(expecting: "a value expression")
            guard parser.current.kind == .end else { throw parser.expected("the end of the value expression") }
        } catch {
            if let selector = calledSelector(text) {
                return .failure(Refusal("calls \"\(selector)\" through FUNCTION, which runs the app's own code and cannot run here"))
            }
            return .failure(Refusal("does not parse: \(error)"))
        }
        if let problem = unsupported(expression, source: source, model: model) { return .failure(Refusal(problem)) }
        if case .path(.variable("source"), let key) = expression, !key.contains(".") {
            return check(.sourceProperty(key), property: property, source: source)
        }
        guard property.attribute != nil else {
            return .failure(Refusal("fills a relationship with a computed value; a relationship is filled only by $source.key "
                                    + "or FUNCTION($manager, \"\(destinationInstances)\", …)"))
        }
        return .success(.computed(MappingExpression(text: text, expression: expression)))
    }

    /// Why a value expression cannot run here, naming what is refused.
    struct Refusal: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// `$source.key` for `property`: a relationship from a relationship, an attribute from an
    /// attribute (computed, and so converted, when the types differ).
    private static func check(_ meaning: Meaning, property: PropertyDescription, source: EntityDescription) -> Result<Meaning, Refusal> {
        guard case .sourceProperty(let key) = meaning else { return .success(meaning) }
        guard let index = source.index(ofProperty: key) else {
            return .failure(Refusal("reads $source.\(key), which the source entity \(source.name) does not have"))
        }
        switch (property, source.properties[index]) {
        case (.relationship, .relationship):
            return .success(meaning)
        case (.attribute(let to), .attribute(let from)):
            if to.type == from.type { return .success(meaning) }
            let text = "$source.\(key)"
            return .success(.computed(MappingExpression(text: text, expression: .path(.variable("source"), key))))
        case (.relationship, .attribute):
            return .failure(Refusal("fills a relationship with the attribute $source.\(key)"))
        case (.attribute, .relationship):
            return .failure(Refusal("fills an attribute with the relationship $source.\(key)"))
        }
    }

    /// The entity mapping and source key of `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "Name", $source.key)`.
    static func destinationInstancesCall(_ text: String) -> (String, String)? {
        var lexer = PredicateLexer(Array(text.utf8))
        let kinds = lexer.tokens().map(\.kind)
        guard kinds.count == 13, case .word(let function) = kinds[0], function.uppercased() == "FUNCTION",
              kinds[1] == .symbol("("), kinds[2] == .variable("manager"), kinds[3] == .symbol(","),
              kinds[4] == .string(destinationInstances), kinds[5] == .symbol(","),
              case .string(let mappingName) = kinds[6], kinds[7] == .symbol(","), kinds[8] == .variable("source"),
              kinds[9] == .symbol("."), case .word(let key) = kinds[10], kinds[11] == .symbol(")"), kinds[12] == .end
        else { return nil }
        return (mappingName, key)
    }

    /// The selector of the first `FUNCTION(receiver, "selector", …)` in `text`.
    static func calledSelector(_ text: String) -> String? {
        var lexer = PredicateLexer(Array(text.utf8))
        let tokens = lexer.tokens().map(\.kind)
        guard let start = tokens.firstIndex(where: { if case .word(let w) = $0 { return w.uppercased() == "FUNCTION" }; return false }) else {
            return nil
        }
        for kind in tokens[start...] {
            if case .string(let selector) = kind { return selector }
        }
        return nil
    }

    /// What in `expression` cannot be evaluated on a source object here, if anything.
    static func unsupported(_ expression: Expression, source: EntityDescription, model: ObjectModel) -> String? {
        switch expression {
        case .constant:
            return nil
        case .path(.variable("source"), let path):
            return resolve(path, from: source, in: model)
        case .variable("source"):
            return "uses $source itself, an object, as a value"
        case .variable(let name):
            return "uses $\(name), which only Core Data's migration manager has"
        case .keyPath(let path):
            return "reads the key path \(path) without $source (write $source.\(path))"
        case .function(_, let arguments):
            return arguments.lazy.compactMap { unsupported($0, source: source, model: model) }.first
        case .cast(let inner, _):
            return unsupported(inner, source: source, model: model)
        default:
            return "uses \(String(describing: expression).prefix(80)), which a mapping is not run with here "
                + "(key paths of $source, constants, arithmetic, built-in functions and CAST are)"
        }
    }

    /// Why `path` does not lead from `entity` through to-one relationships to a property, if it does not.
    static func resolve(_ path: String, from entity: EntityDescription, in model: ObjectModel) -> String? {
        var current = entity
        let keys = path.split(separator: ".").map(String.init)
        for (position, key) in keys.enumerated() {
            guard let index = current.index(ofProperty: key) else {
                return "reads $source.\(path), but the source entity \(current.name) has no property \(key)"
            }
            guard position < keys.count - 1 else { return nil }
            guard case .relationship(let relationship) = current.properties[index], !relationship.isToMany,
                  let next = model.entity(named: relationship.destination) else {
                return "reads $source.\(path), which goes on past \(key), not a to-one relationship"
            }
            current = next
        }
        return nil
    }
}

extension MappingExpression {
    /// Whether a key path of the expression goes past `$source`'s own properties.
    var followsRelationships: Bool { text.contains("$source.") && Self.paths(in: expression).contains { $0.contains(".") } }

    /// The key paths after `$source` in an expression.
    static func paths(in expression: Expression) -> [String] {
        switch expression {
        case .path(.variable("source"), let path): return [path]
        case .function(_, let arguments): return arguments.flatMap(paths(in:))
        case .cast(let inner, _): return paths(in: inner)
        default: return []
        }
    }
}
