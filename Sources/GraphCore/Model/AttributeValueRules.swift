import Foundation

/// The value rules of one attribute (minimum, maximum, pattern), checked when an object is
/// saved; built once when the model is resolved, with the pattern compiled.
struct AttributeValueRules {
    let minimum: Value?
    let maximum: Value?
    let pattern: String?
    private let regex: RegularExpression?
    private let type: AttributeType

    /// The rules of `attribute`, nil when it has none.
    ///
    /// - Throws: ``ModelError/invalidRule(entity:attribute:reason:)`` for a bound of the wrong
    ///   kind, crossed bounds, a pattern on a non-string attribute or a pattern that does not compile.
    init?(_ attribute: AttributeDescription, entity: String) throws(ModelError) {
        guard attribute.minValue != nil || attribute.maxValue != nil || attribute.regularExpression != nil else { return nil }
        let fail = { (reason: String) in ModelError.invalidRule(entity: entity, attribute: attribute.name, reason: reason) }
        type = attribute.type
        minimum = try attribute.minValue.map { (bound) throws(ModelError) in try Self.bound(bound, "minimum", for: attribute.type, fail) }
        maximum = try attribute.maxValue.map { (bound) throws(ModelError) in try Self.bound(bound, "maximum", for: attribute.type, fail) }
        if let minimum, let maximum, Self.compare(minimum, maximum) == .orderedDescending {
            throw fail("the minimum \(minimum) is greater than the maximum \(maximum)")
        }
        pattern = attribute.regularExpression
        if let pattern = attribute.regularExpression {
            guard attribute.type == .string else { throw fail("a pattern applies to string attributes only, not to \(attribute.type)") }
            do {
                regex = try RegularExpression(pattern, caseInsensitive: false)
            } catch {
                throw fail("the pattern '\(pattern)' is not a regular expression GraphCore accepts: \(error)")
            }
        } else {
            regex = nil
        }
    }

    /// A bound in the form the checks compare: a length (`.int`) for strings and binary data,
    /// a value of the attribute's type otherwise.
    private static func bound(_ value: Value, _ which: String, for type: AttributeType,
                              _ fail: (String) -> ModelError) throws(ModelError) -> Value {
        switch type {
        case .string, .binary:
            guard case .int(let length) = value, length >= 0 else {
                throw fail("the \(which) of a \(type) attribute is a length (a whole number, 0 or more), not \(value)")
            }
            return value
        case .int16, .int32, .int64, .double, .float, .decimal, .date:
            guard let converted = value.converted(to: type), !converted.isNull else {
                throw fail("the \(which) \(value) is not a \(type)")
            }
            if case .double(let d) = converted, d.isNaN { throw fail("the \(which) is NaN") }
            return converted
        case .bool, .uuid, .uri:
            throw fail("a \(type) attribute takes no \(which)")
        }
    }

    /// Why `value` (already of the attribute's type, not nil) breaks a rule, if it does.
    func violation(of value: Value) -> String? {
        switch type {
        case .string:
            guard case .string(let text) = value else { return nil }
            let length = text.utf16.count
            if case .int(let least) = minimum, length < least {
                return "has \(length) characters, fewer than its minimum \(least)"
            }
            if case .int(let most) = maximum, length > most {
                return "has \(length) characters, more than its maximum \(most)"
            }
            if let regex, let pattern, regex.wholeMatch(text) == false {
                return "does not match the pattern '\(pattern)'"
            }
            return nil
        case .binary:
            guard case .binary(let data) = value else { return nil }
            if case .int(let least) = minimum, data.count < least { return "has \(data.count) bytes, fewer than its minimum \(least)" }
            if case .int(let most) = maximum, data.count > most { return "has \(data.count) bytes, more than its maximum \(most)" }
            return nil
        default:
            if let minimum, Self.compare(value, minimum) == .orderedAscending { return "is \(value), less than its minimum \(minimum)" }
            if let maximum, Self.compare(value, maximum) == .orderedDescending { return "is \(value), more than its maximum \(maximum)" }
            return nil
        }
    }

    /// The order of two values of one numeric or date type; nil when they cannot be compared (NaN).
    static func compare(_ a: Value, _ b: Value) -> ComparisonResult? {
        func order<T: Comparable>(_ x: T, _ y: T) -> ComparisonResult {
            x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        }
        switch (a, b) {
        case (.int(let x), .int(let y)): return order(x, y)
        case (.date(let x), .date(let y)): return order(x, y)
        case (.decimal(let x), .decimal(let y)):
            return x.isNaN || y.isNaN ? nil : order(x, y)
        case (.double(let x), .double(let y)):
            return x.isNaN || y.isNaN ? nil : order(x, y)
        default: return nil
        }
    }
}
