import DocumentProtocol
import Foundation
import GraphCore
import JSONCore

/// Reads values sent by a client: attribute values as in the store file, object IDs,
/// and predicate arguments.
enum WireValues {
    /// The value of an attribute of `type` from its JSON form. The path is made only for an
    /// error (a save names many values, and their paths cost more than their checks).
    static func attribute(_ json: JSONValue, type: AttributeType, path: @autoclosure () -> String) throws(RPCError) -> Value {
        if type == .decimal, case .number(let text) = json, let problem = DecimalLimits.problem(text) {
            throw .invalidParams(path(), "the decimal \(RPCError.capped(text)) \(problem)")
        }
        if type == .decimal, case .string(let text) = json, let problem = DecimalLimits.problem(text) {
            throw .invalidParams(path(), "the decimal \(RPCError.capped(text)) \(problem)")
        }
        guard let value = ValueForm.value(json, as: type) else {
            throw .invalidParams(path(), "must be \(ValueForm.expectation(for: type)), not \(Params.describe(json))")
        }
        return value
    }

    /// An object ID of the model from its URI form.
    static func objectID(_ json: JSONValue, model: ObjectModel, path: String) throws(RPCError) -> ObjectID {
        guard case .string(let text) = json else { throw .invalidParams(path, "must be an object ID (a string), not \(Params.describe(json))") }
        return try objectID(text, model: model, path: path)
    }

    static func objectID(_ text: String, model: ObjectModel, path: String) throws(RPCError) -> ObjectID {
        do {
            return try ObjectID(uri: text, model: model)
        } catch {
            throw notAnObjectID(text, error, path: path)
        }
    }

    /// An object ID read by a connection's `reader` (the same IDs and errors as ``ObjectID/init(uri:model:)``,
    /// the usual URI read from its bytes); the path is made only for an error.
    static func objectID(_ text: String, reader: inout ObjectIDReader, path: @autoclosure () -> String) throws(RPCError) -> ObjectID {
        do {
            return try reader.objectID(uri: text)
        } catch {
            throw notAnObjectID(text, error, path: path())
        }
    }

    private static func notAnObjectID(_ text: String, _ error: GraphError, path: String) -> RPCError {
        let reason: String
        if case .invalidObjectURI(_, let why) = error { reason = why } else { reason = "\(error)" }
        return .invalidParams(path, "\"\(RPCError.capped(text))\" is not an object ID: \(reason)")
    }

    /// A predicate argument: JSON scalars and arrays stand for themselves; an object with
    /// one key (`date`, `decimal`, `uuid`, `binary`, `uri`, `id`) gives a value of that type.
    static func argument(_ json: JSONValue, model: ObjectModel, path: String) throws(RPCError) -> PredicateValue {
        switch json {
        case .null: return .value(.null)
        case .bool(let flag): return .value(.bool(flag))
        case .string(let text): return .value(.string(text))
        case .number(let text):
            if let integer = Int64(text) { return .value(.int(integer)) }
            guard let double = Double(text), double.isFinite else { throw .invalidParams(path, "the number \(RPCError.capped(text)) does not fit a double") }
            return .value(.double(double))
        case .array(let elements):
            var values: [PredicateValue] = []
            for (index, element) in elements.enumerated() {
                values.append(try argument(element, model: model, path: "\(path)[\(index)]"))
            }
            return .array(values)
        case .object(let pairs):
            let kinds = "date, decimal, uuid, binary, uri or id"
            guard pairs.count == 1, let (key, value) = pairs.first else {
                throw .invalidParams(path, "a typed argument is an object with one key (\(kinds))")
            }
            let typePath = "\(path).\(key)"
            switch key {
            case "id": return .value(.object(try objectID(value, model: model, path: typePath)))
            case "date": return .value(try typed(value, .date, path: typePath))
            case "decimal": return .value(try typed(value, .decimal, path: typePath))
            case "uuid": return .value(try typed(value, .uuid, path: typePath))
            case "binary": return .value(try typed(value, .binary, path: typePath))
            case "uri": return .value(try typed(value, .uri, path: typePath))
            default: throw .invalidParams(typePath, "unknown argument type (known: \(kinds))")
            }
        }
    }

    private static func typed(_ json: JSONValue, _ type: AttributeType, path: String) throws(RPCError) -> Value {
        let value = try attribute(json, type: type, path: path)
        if value.isNull { throw .invalidParams(path, "must be \(ValueForm.expectation(for: type)), not null") }
        return value
    }
}
