import DocumentProtocol
import GraphCore
import JSONCore

/// The parameters of `get`: the IDs, and optionally the version the client holds of each.
struct GetCall: Sendable {
    let ids: [ObjectID]
    /// At each position of `ids`, the version the client already holds (or nil): an object
    /// still at that version is answered without its values.
    let knownVersions: [Int64?]?
    /// The commit the answer must hold (`after`): a `seq` any server answered (nil: any).
    let after: Int64?
    /// What the connection's user may read (nil: everything): the others are `missing`.
    var readAccess: ReadAccess?

    /// The test of the objects `state` holds that the answer may carry; nil: every object.
    func readFilter(in state: ReadState) -> ((ObjectSnapshot) -> Bool)? {
        readAccess.map { $0.filter(in: state) }
    }

    init(ids: [ObjectID], knownVersions: [Int64?]? = nil, after: Int64? = nil) {
        self.ids = ids
        self.knownVersions = knownVersions
        self.after = after
    }

    static func parse(_ value: JSONValue, model: ObjectModel) throws(RPCError) -> GetCall {
        let params = try Params(value, allowed: ["ids", "versions", Params.after])
        guard let elements = try params.optionalArray("ids") else { throw .invalidParams(params.path("ids"), "is required (an array of object IDs)") }
        var ids: [ObjectID] = []
        ids.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            // The usual case without building the error's path (a string per ID).
            if case .string(let text) = element, let id = try? ObjectID(uri: text, model: model) {
                ids.append(id)
                continue
            }
            ids.append(try WireValues.objectID(element, model: model, path: "params.ids[\(index)]"))
        }
        return GetCall(ids: ids, knownVersions: try knownVersions(params, count: ids.count), after: try params.after())
    }

    /// `versions`: an array as long as `ids` of integers or nulls.
    private static func knownVersions(_ params: Params, count: Int) throws(RPCError) -> [Int64?]? {
        guard let elements = try params.optionalArray("versions") else { return nil }
        guard elements.count == count else {
            throw .invalidParams(params.path("versions"), "must have one element per ID (\(count)), not \(elements.count)")
        }
        var versions: [Int64?] = []
        versions.reserveCapacity(count)
        for (index, element) in elements.enumerated() {
            switch element {
            case .null:
                versions.append(nil)
            case .number(let text) where Int64(text) != nil:
                versions.append(Int64(text))
            default:
                throw .invalidParams("params.versions[\(index)]", "must be a version (an integer) or null, not \(Params.describe(element))")
            }
        }
        return versions
    }

    /// The result: `{"objects":[…],"missing":[…]}`, objects in the order of `ids`, nil for
    /// missing ones; an object at the version the client holds is `{"id","entity","version"}`
    /// without `values`.
    func result(_ objects: [WireObjectCache.Entry?]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(objects.reduce(Self.opening.count + Self.middle.count + 2) { $0 + ($1?.bytes.count ?? 4) + 1 })
        bytes += Self.opening
        var missing: [ObjectID] = []
        for (index, (id, object)) in zip(ids, objects).enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            if let object {
                if let known = knownVersions?[index], known == object.version {
                    bytes += Self.unchanged(id, version: object.version)
                } else {
                    bytes += object.bytes
                }
            } else {
                bytes += Array("null".utf8)
                missing.append(id)
            }
        }
        bytes += Self.middle
        for (index, id) in missing.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += (try? JSONText.make { try $0.string(id.uriRepresentation) }) ?? []
        }
        bytes += Array("]}".utf8)
        return bytes
    }

    private static let opening = Array(#"{"objects":["#.utf8)
    private static let middle = Array(#"],"missing":["#.utf8)

    /// `{"id":…,"entity":…,"version":n}`: an object the client holds at its current version.
    private static func unchanged(_ id: ObjectID, version: Int64) -> [UInt8] {
        (try? JSONText.make { out in
            try out.openObject()
            try out.string("id")
            try out.string(id.uriRepresentation)
            try out.string("entity")
            try out.string(id.entity.name)
            try out.string("version")
            try out.integer(version)
            try out.closeObject()
        }) ?? []
    }
}
