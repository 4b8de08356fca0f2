import Foundation
import GraphCore

/// A predicate's shape: the predicate with each constant replaced by a marker that names its
/// place and the class of value that decides what SQL says of it, and the constants themselves.
///
/// Two predicates of one shape translate to one SQL text whose parameters come from their
/// constants (``FetchPlanCache``): `title == "A"` and `title == "B"` have one shape, `rating ==
/// nil` (`IS NULL`) and `rating == 1.5` two. A class tells apart every value ``PredicateTranslator``
/// turns into other SQL than a parameter: nil, NaN, an integer compared with a double column past
/// 2⁵³, a string that is not plain ASCII or holds a backslash, an object not of this store.
///
/// Constants are numbered in the order of the predicate's text: parts in order, a comparison's
/// left side before its right. The translator reads a marker's constant back with ``constant(of:)``.
struct PredicateShape: Hashable {
    /// The predicate with markers in place of its constants.
    let marked: GraphCore.Predicate

    /// The shape of `predicate` and its constants, for a store whose objects' IDs carry `storeIdentifier`.
    static func of(_ predicate: GraphCore.Predicate, storeIdentifier: String) -> (shape: PredicateShape, constants: [Value]) {
        var walk = Walk(storeIdentifier: storeIdentifier)
        let marked = walk.predicate(predicate)
        return (PredicateShape(marked: marked), walk.constants)
    }

    /// The place of the constant a marker stands for, and the constant (nil for an expression
    /// that is not a marker of `constants`).
    static func constant(of expression: GraphCore.Expression, in constants: [Value]) -> (value: Value, slot: Int)? {
        guard case .constant(.string(let marker)) = expression, let colon = marker.firstIndex(of: ":"),
              let slot = Int(marker[..<colon]), constants.indices.contains(slot) else { return nil }
        return (constants[slot], slot)
    }

    /// The class of a constant: what of it, besides its kind, the SQL said of it depends on.
    static func valueClass(_ value: Value, storeIdentifier: String) -> String {
        switch value {
        case .null: return "null"
        case .int(let i): return i.magnitude <= 1 << 53 ? "int" : "int>2^53"
        case .double(let d): return d.isNaN ? "double-nan" : "double"
        case .decimal: return "decimal"
        case .string(let s):
            let plain = s.utf8.allSatisfy { $0 > 0 && $0 < 0x80 && $0 != 0x0A && $0 != 0x0D }
            return "string" + (plain ? "-plain" : "") + (s.utf8.contains(UInt8(ascii: "\\")) ? "-backslash" : "")
                + (Int32(exactly: s.utf8.count) == nil ? "-huge" : "")
        case .bool: return "bool"
        case .date(let d): return d.timeIntervalSinceReferenceDate.isNaN ? "date-nan" : "date"
        case .binary: return "binary"
        case .uuid: return "uuid"
        case .uri: return "uri"
        case .object(let id):
            guard !id.isTemporary, id.storeIdentifier == storeIdentifier, case .int = id.referenceObject else { return "object-elsewhere" }
            return "object"
        case .objects: return "objects"
        }
    }

    /// Replaces constants with markers, in order, keeping them.
    private struct Walk {
        let storeIdentifier: String
        var constants: [Value] = []

        mutating func predicate(_ predicate: GraphCore.Predicate) -> GraphCore.Predicate {
            switch predicate {
            case .constant: return predicate
            case .comparison(var comparison):
                comparison.left = expression(comparison.left)
                comparison.right = expression(comparison.right)
                return .comparison(comparison)
            case .and(let parts): return .and(predicates(parts))
            case .or(let parts): return .or(predicates(parts))
            case .not(let inner): return .not(self.predicate(inner))
            }
        }

        private mutating func predicates(_ parts: [GraphCore.Predicate]) -> [GraphCore.Predicate] {
            var marked: [GraphCore.Predicate] = []
            marked.reserveCapacity(parts.count)
            for part in parts { marked.append(predicate(part)) }
            return marked
        }

        private mutating func expressions(_ items: [GraphCore.Expression]) -> [GraphCore.Expression] {
            var marked: [GraphCore.Expression] = []
            marked.reserveCapacity(items.count)
            for item in items { marked.append(expression(item)) }
            return marked
        }

        mutating func expression(_ expression: GraphCore.Expression) -> GraphCore.Expression {
            switch expression {
            case .constant(let value):
                let marker = "\(constants.count):" + PredicateShape.valueClass(value, storeIdentifier: storeIdentifier)
                constants.append(value)
                return .constant(.string(marker))
            case .evaluatedObject, .keyPath, .variable:
                return expression
            case .path(let inner, let key):
                return .path(self.expression(inner), key)
            case .array(let items):
                return .array(expressions(items))
            case .aggregate(let function, let inner, let key):
                return .aggregate(function, self.expression(inner), key)
            case .subquery(let collection, let variable, let condition):
                let marked = self.expression(collection)
                return .subquery(marked, variable: variable, predicate(condition))
            case .function(let function, let arguments):
                return .function(function, expressions(arguments))
            case .ternary(let condition, let whenTrue, let whenFalse):
                let test = predicate(condition)
                let first = self.expression(whenTrue)
                return .ternary(test, first, self.expression(whenFalse))
            case .cast(let inner, let type):
                return .cast(self.expression(inner), type)
            case .index(let inner, let subscriptValue):
                let collection = self.expression(inner)
                guard case .position(let position) = subscriptValue else { return .index(collection, subscriptValue) }
                return .index(collection, .position(self.expression(position)))
            }
        }
    }
}
