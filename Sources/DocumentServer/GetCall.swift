import GraphCore
import JSONAtomicStore

/// The parameters of `get`.
struct GetCall: Sendable {
    let ids: [ObjectID]

    static func parse(_ value: JSONValue, model: ObjectModel) throws(RPCError) -> GetCall {
        let params = try Params(value, allowed: ["ids"])
        guard let elements = try params.optionalArray("ids") else { throw .invalidParams(params.path("ids"), "is required (an array of object IDs)") }
        var ids: [ObjectID] = []
        ids.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            ids.append(try WireValues.objectID(element, model: model, path: "params.ids[\(index)]"))
        }
        return GetCall(ids: ids)
    }

    /// The result: `{"objects":[…],"missing":[…]}`, objects in the order of `ids`, nil for
    /// missing ones.
    static func result(_ ids: [ObjectID], _ objects: [[UInt8]?]) -> [UInt8] {
        var bytes = Array(#"{"objects":["#.utf8)
        var missing: [ObjectID] = []
        for (index, (id, object)) in zip(ids, objects).enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            if let object {
                bytes += object
            } else {
                bytes += Array("null".utf8)
                missing.append(id)
            }
        }
        bytes += Array(#"],"missing":["#.utf8)
        for (index, id) in missing.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += (try? JSONText.make { try $0.string(id.uriRepresentation) }) ?? []
        }
        bytes += Array("]}".utf8)
        return bytes
    }
}
