import DocumentProtocol
import Foundation
import GraphCore
import JSONCore

/// Writes the object lines of an export straight into bytes: exactly what `WireObjectEncoder`
/// writes through yajl (`{"id","entity","version","values"}`, values in property order,
/// unordered to-many lists by reference), without yajl's calls per token, a copy of each
/// `PropertyDescription` per value or a String per ID.
///
/// Each entity's keys (`"title":`…) and ID prefix (`"graph://<storeUUID>/<Entity>/`) are
/// escaped once. Integers, doubles, strings, Booleans, dates, decimals, UUIDs and URIs are
/// written here, strings escaped as yajl escapes them (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`,
/// `\t`, other bytes below 0x20 as `\u00XX`; the solidus and UTF-8 as they are); any other
/// value (binary data, a value of a convertible kind, a value its property cannot hold) is
/// written by `ValueForm` through a generator, so its text and its error are the protocol's.
/// `ExportLineEncoderTests` compares the two writers byte for byte.
///
/// Not `Sendable`: one encoder per thread (``copy()`` for another).
final class ExportLineEncoder {
    /// How one entity's objects are written. A class: handed to every value and ID of a line,
    /// a struct of five references was retained and released five times each time (perf).
    private final class Plan {
        let entity: EntityDescription
        /// `,"entity":"<name>","version":`.
        let entityAndVersion: [UInt8]
        /// `"graph://<storeUUID>/<Entity>/` (an opening quote, no closing one).
        let idPrefix: [UInt8]
        /// Per property: `"name":`, with a comma before all but the first.
        let keys: [[UInt8]]
        let kinds: [Kind]

        init(entity: EntityDescription, entityAndVersion: [UInt8], idPrefix: [UInt8], keys: [[UInt8]], kinds: [Kind]) {
            self.entity = entity
            self.entityAndVersion = entityAndVersion
            self.idPrefix = idPrefix
            self.keys = keys
            self.kinds = kinds
        }
    }

    private enum Kind {
        case attribute(AttributeType)
        /// `sorted`: an unordered list written by reference.
        case relationship(toMany: Bool, sorted: Bool)
    }

    private let storeUUID: String
    private let model: ObjectModel
    private var plans: [Plan] = []
    /// The plan last used for an ID of another entity than its line's (a song's album, an
    /// album's songs): most IDs of a line are of one entity.
    private var lastOtherPlan: Plan?
    /// For the values written through yajl (made when first needed).
    private var generator: JSONGenerator?

    init(model: ObjectModel, storeUUID: String) {
        self.model = model
        self.storeUUID = storeUUID
    }

    /// An encoder for another thread.
    func copy() -> ExportLineEncoder { ExportLineEncoder(model: model, storeUUID: storeUUID) }

    /// Appends `snapshot`'s line, with its line feed, to `out`.
    func write(_ snapshot: ObjectSnapshot, to out: ExportBytes) throws {
        let plan = self.plan(for: snapshot.objectID.entity)
        out.append(Self.idKey)
        writeID(snapshot.objectID, plan: plan, to: out)
        out.append(plan.entityAndVersion)
        out.appendInteger(snapshot.version)
        out.append(Self.valuesKey)
        let values = snapshot.values
        for index in plan.kinds.indices {
            out.append(plan.keys[index])
            let value = index < values.count ? values[index] : .null
            switch plan.kinds[index] {
            case .attribute(let type):
                try writeAttribute(value, as: type, to: out)
            case .relationship(let toMany, let sorted):
                writeRelationship(value, toMany: toMany, sorted: sorted, plan: plan, to: out)
            }
        }
        out.append(Self.lineEnd)
    }

    // MARK: - Values

    private func writeAttribute(_ value: Value, as type: AttributeType, to out: ExportBytes) throws {
        switch (type, value) {
        case (_, .null): out.append(Self.null)
        case (.int16, .int(let number)), (.int32, .int(let number)), (.int64, .int(let number)): out.appendInteger(number)
        case (.double, .double(let number)), (.float, .double(let number)):
            // (A `where` here would bind only the last pattern: the check is in the body.)
            guard number.isFinite else { return try writeThroughGenerator(value, as: type, to: out) }
            var text = number.description
            text.withUTF8 { out.append(UnsafeRawBufferPointer($0)) }
        case (.string, .string(let text)): out.appendString(text)
        case (.bool, .bool(let flag)): out.append(flag ? Self.trueText : Self.falseText)
        case (.date, .date(let date)):
            withUnsafeTemporaryAllocation(byteCount: ISO8601.maximumLength, alignment: 8) { buffer in
                let count = ISO8601.write(date, into: buffer)
                out.appendString(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<count]))
            }
        case (.decimal, .decimal), (.uuid, .uuid), (.uri, .uri):
            out.appendString(value.textForm ?? "")
        default:
            try writeThroughGenerator(value, as: type, to: out)
        }
    }

    /// The rare values, written by `ValueForm` itself (its text, its error).
    private func writeThroughGenerator(_ value: Value, as type: AttributeType, to out: ExportBytes) throws {
        let generator = try self.generator ?? JSONGenerator()
        self.generator = generator
        generator.reset(separator: nil)
        try ValueForm.write(value, as: type, to: generator)
        try generator.flush { out.append($0) }
    }

    /// As `WireObjectEncoder` writes a relationship: an ID, a list, or for anything else `[]`
    /// (to-many) or `null`.
    private func writeRelationship(_ value: Value, toMany: Bool, sorted: Bool, plan: Plan, to out: ExportBytes) {
        guard case .objects(let ids) = value else {
            if case .object(let id) = value {
                writeID(id, plan: plan, to: out)
            } else {
                out.append(toMany ? Self.emptyArray : Self.null)
            }
            return
        }
        out.append(Self.openArray)
        let ordered = sorted && !Self.isByReference(ids) ? ids.sorted(by: WireObjectEncoder.referenceOrder) : ids
        for (position, id) in ordered.enumerated() {
            if position > 0 { out.append(Self.comma) }
            writeID(id, plan: plan, to: out)
        }
        out.append(Self.closeArray)
    }

    /// Whether `ids` are in `WireObjectEncoder.referenceOrder` already (a store keeps them so):
    /// checked for the common case, integer references of one entity; anything else is sorted.
    private static func isByReference(_ ids: [ObjectID]) -> Bool {
        guard ids.count > 1 else { return true }
        guard case .int(var previous) = ids[0].referenceObject else { return false }
        let entity = ids[0].entity
        for id in ids.dropFirst() {
            guard id.entity === entity, case .int(let number) = id.referenceObject, number >= previous else { return false }
            previous = number
        }
        return true
    }

    // MARK: - IDs

    /// Writes `id` as one JSON string: from its entity's prefix and the reference's digits when
    /// it is an ID of the exported store with a non-negative integer reference, else from its
    /// `uriRepresentation`.
    private func writeID(_ id: ObjectID, plan: Plan, to out: ExportBytes) {
        guard case .int(let number) = id.referenceObject, number >= 0, id.storeIdentifier == storeUUID else {
            out.appendString(id.uriRepresentation)
            return
        }
        let entity = id.entity
        if entity === plan.entity {
            out.append(plan.idPrefix)
        } else if let other = lastOtherPlan, other.entity === entity {
            out.append(other.idPrefix)
        } else {
            let other = self.plan(for: entity)
            lastOtherPlan = other
            out.append(other.idPrefix)
        }
        out.appendInteger(number)
        out.append(Self.quote)
    }

    private func plan(for entity: EntityDescription) -> Plan {
        for index in plans.indices where plans[index].entity === entity { return plans[index] }
        let escapedName = ExportBytes.escaped(entity.name)
        var keys: [[UInt8]] = []
        var kinds: [Kind] = []
        for property in entity.properties {
            keys.append((keys.isEmpty ? [] : [UInt8(ascii: ",")]) + ExportBytes.escaped(property.name) + [UInt8(ascii: ":")])
            switch property {
            case .attribute(let attribute): kinds.append(.attribute(attribute.type))
            case .relationship(let relationship):
                kinds.append(.relationship(toMany: relationship.isToMany, sorted: !relationship.isOrdered))
            }
        }
        var prefix = ExportBytes.escaped("graph://\(storeUUID)/\(entity.name)/")
        prefix.removeLast()  // the closing quote: the digits and a quote follow
        let plan = Plan(entity: entity, entityAndVersion: Array(",\"entity\":".utf8) + escapedName + Array(",\"version\":".utf8),
                        idPrefix: prefix, keys: keys, kinds: kinds)
        plans.append(plan)
        return plan
    }

    private static let idKey = Array("{\"id\":".utf8)
    private static let valuesKey = Array(",\"values\":{".utf8)
    private static let lineEnd = Array("}}\n".utf8)
    private static let null = Array("null".utf8)
    private static let trueText = Array("true".utf8)
    private static let falseText = Array("false".utf8)
    private static let emptyArray = Array("[]".utf8)
    private static let openArray = [UInt8(ascii: "[")]
    private static let closeArray = [UInt8(ascii: "]")]
    private static let comma = [UInt8(ascii: ",")]
    private static let quote = [UInt8(ascii: "\"")]
}
