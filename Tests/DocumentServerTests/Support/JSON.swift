import Foundation
import ServerTestSupport

/// A parsed JSON value (Foundation's `JSONSerialization` underneath), read with subscripts that
/// never trap: a missing key or index gives a missing value whose accessors return nil.
struct JSON: CustomStringConvertible {
    /// The Foundation value; nil when missing (not the same as JSON `null`, which is `NSNull`).
    let value: Any?

    init(_ value: Any?) { self.value = value }

    init(parsing text: String) throws {
        do {
            value = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        } catch {
            throw HarnessError("not JSON: \(text.prefix(500).debugDescription)")
        }
    }

    init(contentsOf url: URL) throws {
        value = try JSONSerialization.jsonObject(with: Data(contentsOf: url), options: [.fragmentsAllowed])
    }

    subscript(key: String) -> JSON { JSON((value as? [String: Any])?[key]) }

    subscript(index: Int) -> JSON {
        guard let array = value as? [Any], array.indices.contains(index) else { return JSON(nil) }
        return JSON(array[index])
    }

    var isMissing: Bool { value == nil }
    var isNull: Bool { value is NSNull }
    var string: String? { value as? String }
    var array: [JSON]? { (value as? [Any])?.map(JSON.init) }
    var object: [String: JSON]? { (value as? [String: Any])?.mapValues(JSON.init) }
    var keys: [String] { (value as? [String: Any]).map { $0.keys.sorted() } ?? [] }
    var count: Int? { (value as? [Any])?.count ?? (value as? [String: Any])?.count }

    var int: Int? {
        guard let number = value as? NSNumber, !isBool else { return nil }
        let double = number.doubleValue
        guard double == double.rounded(), abs(double) < 9.0e18 else { return nil }
        return number.intValue
    }

    var double: Double? {
        guard let number = value as? NSNumber, !isBool else { return nil }
        return number.doubleValue
    }

    var bool: Bool? { isBool ? (value as? Bool) : nil }

    private var isBool: Bool {
        guard let number = value as? NSNumber else { return false }
        // Foundation reads JSON `true` and `false` as boolean NSNumbers, of type "c".
        return String(cString: number.objCType) == "c"
    }

    /// The strings of an array (nil when it is not an array of strings).
    var strings: [String]? {
        guard let array = value as? [Any] else { return nil }
        let strings = array.compactMap { $0 as? String }
        return strings.count == array.count ? strings : nil
    }

    /// The strings of an object by key (nil when it is not an object of strings).
    var stringValues: [String: String]? {
        guard let object = value as? [String: Any] else { return nil }
        let strings = object.compactMapValues { $0 as? String }
        return strings.count == object.count ? strings : nil
    }

    /// Compact JSON with sorted keys: a canonical text, for messages and comparisons.
    var description: String {
        guard let value else { return "<missing>" }
        return JSON.text(value, sorted: true)
    }

    /// `value` as compact JSON text.
    static func text(_ value: Any, sorted: Bool = false) -> String {
        var options: JSONSerialization.WritingOptions = [.fragmentsAllowed, .withoutEscapingSlashes]
        if sorted { options.insert(.sortedKeys) }
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: options) else { return "<not JSON: \(value)>" }
        return String(decoding: data, as: UTF8.self)
    }
}

extension JSON: Equatable {
    /// Equal when their canonical texts are.
    static func == (lhs: JSON, rhs: JSON) -> Bool { lhs.description == rhs.description }
}
