import DocumentProtocol
import GraphCore
import JSONCore

extension SaveCall {
    /// The save of a plain line (``SaveRequestLine``), read from the line's bytes with no JSON
    /// tree and no `Params`: the same call ``parse(_:ids:)`` makes of the same line, or nil
    /// wherever `parse` would throw (an unknown entity or property, a value of the wrong type,
    /// an ID that is not one, a temporary ID used twice, an object named twice…), so that the
    /// line goes the general way, which answers the error. Paths (`params.update[0].values.a`)
    /// are made only where the call keeps them: in relationships' references.
    static func read(_ line: SaveRequestLine, in bytes: UnsafeRawBufferPointer, ids: inout ObjectIDReader) -> SaveCall? {
        var reader = LineAssignmentReader(bytes: bytes, ids: ids)
        defer { ids = reader.ids }
        let model = reader.model
        var call = SaveCall()
        // Temporary IDs first: values may refer to an insert that comes later in the list.
        var entities: [EntityDescription] = []
        entities.reserveCapacity(line.inserts.count)
        for insert in line.inserts {
            let temporaryID = reader.text(insert.id)
            guard !temporaryID.isEmpty, !temporaryID.hasPrefix("graph://"), reader.temporaryEntities[temporaryID] == nil,
                  let entity = model.entity(named: reader.text(insert.entity)), !entity.isAbstract else { return nil }
            reader.temporaryEntities[temporaryID] = entity
            entities.append(entity)
        }
        call.inserts.reserveCapacity(line.inserts.count)
        for (index, insert) in line.inserts.enumerated() {
            guard let values = reader.values(insert.values, of: entities[index], path: { "params.insert[\(index)].values" }) else { return nil }
            call.inserts.append(Insert(temporaryID: reader.text(insert.id), entity: entities[index], values: values))
        }
        var named = NamedIDs(expected: line.updates.count + line.deletes.count)
        call.updates.reserveCapacity(line.updates.count)
        for (index, update) in line.updates.enumerated() {
            guard let id = reader.objectID(update.id), named.insert(id),
                  let values = reader.values(update.values, of: id.entity, path: { "params.update[\(index)].values" }) else { return nil }
            call.updates.append(Update(id: id, version: update.version, values: values))
        }
        call.deletes.reserveCapacity(line.deletes.count)
        for delete in line.deletes {
            guard let id = reader.objectID(delete.id), named.insert(id) else { return nil }
            call.deletes.append(Delete(id: id, version: delete.version))
        }
        return call
    }
}

/// The objects a save updates or deletes, to refuse one named twice: one needs no list (the
/// usual save), a few are compared one by one, more are kept in a set.
private struct NamedIDs {
    private let expected: Int
    private var few: [ObjectID] = []
    private var many: Set<ObjectID>?

    init(expected: Int) {
        self.expected = expected
        if expected > 8 { many = Set(minimumCapacity: expected) } else if expected > 1 { few.reserveCapacity(expected) }
    }

    /// Whether `id` was not named before (it is now).
    mutating func insert(_ id: ObjectID) -> Bool {
        if expected <= 1 { return true }
        if many != nil { return many?.insert(id).inserted ?? false }
        guard !few.contains(id) else { return false }
        few.append(id)
        return true
    }
}

/// Reads the `values` of a plain save line's inserts and updates, as `SaveCall`'s own reader
/// reads them from a JSON tree, giving nil where that one throws.
private struct LineAssignmentReader {
    let bytes: UnsafeRawBufferPointer
    var ids: ObjectIDReader
    var temporaryEntities: [String: EntityDescription] = [:]
    var model: ObjectModel { ids.model }

    init(bytes: UnsafeRawBufferPointer, ids: ObjectIDReader) {
        self.bytes = bytes
        self.ids = ids
    }

    func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// The object ID whose URI (ASCII, no escapes) is at `range`; nil when it is none.
    mutating func objectID(_ range: Range<Int>) -> ObjectID? {
        try? ids.objectID(utf8: UnsafeRawBufferPointer(rebasing: bytes[range]))
    }

    mutating func values(_ members: [SaveRequestLine.Member], of entity: EntityDescription,
                         path: () -> String) -> [(key: String, value: SaveCall.Assignment)]? {
        var result: [(key: String, value: SaveCall.Assignment)] = []
        result.reserveCapacity(members.count)
        for member in members {
            let key = text(member.key)
            guard let property = entity.property(named: key) else { return nil }
            switch property {
            case .attribute(let attribute):
                guard let value = attributeValue(member.value, type: attribute.type) else { return nil }
                result.append((key, .attribute(value)))
            case .relationship(let relationship):
                guard let destination = model.entity(named: relationship.destination) else { return nil }
                let keyPath = "\(path()).\(RPCError.capped(key))"
                if relationship.isToMany {
                    guard case .strings(let elements) = member.value else { return nil }
                    var references: [SaveCall.Reference] = []
                    references.reserveCapacity(elements.count)
                    for (index, element) in elements.enumerated() {
                        guard let reference = reference(element, to: destination, path: "\(keyPath)[\(index)]") else { return nil }
                        references.append(reference)
                    }
                    result.append((key, .toMany(references)))
                } else if member.value == .null {
                    result.append((key, .toOne(nil)))
                } else {
                    guard case .string(let range) = member.value, isASCII(range),
                          let reference = reference(range, to: destination, path: keyPath) else { return nil }
                    result.append((key, .toOne(reference)))
                }
            }
        }
        return result
    }

    /// What `WireValues.attribute` gives for the same JSON value, or nil where it throws.
    private func attributeValue(_ value: SaveRequestLine.Value, type: AttributeType) -> Value? {
        switch value {
        case .null:
            return .null
        case .bool(let flag):
            return type == .bool ? .bool(flag) : nil
        case .strings:
            return nil  // an array is no attribute's value
        case .number(let range):
            // A decimal is checked against its limits first: the general way's own function does it.
            if type == .decimal { return try? WireValues.attribute(.number(text(range)), type: type, path: "") }
            return ValueForm.value(number: UnsafeRawBufferPointer(rebasing: bytes[range]), as: type)
        case .string(let range):
            if type == .decimal { return try? WireValues.attribute(.string(text(range)), type: type, path: "") }
            return ValueForm.value(string: UnsafeRawBufferPointer(rebasing: bytes[range]), as: type)
        }
    }

    /// A relationship's target: an object ID (`graph://…`) of a `destination`, or the
    /// temporary ID of an insert of this save.
    private mutating func reference(_ range: Range<Int>, to destination: EntityDescription, path: String) -> SaveCall.Reference? {
        let entity: EntityDescription
        let reference: SaveCall.Reference
        if UnsafeRawBufferPointer(rebasing: bytes[range]).starts(with: Self.objectIDPrefix) {
            guard let id = objectID(range) else { return nil }
            entity = id.entity
            reference = .existing(id, path: path)
        } else {
            let text = text(range)
            guard let inserted = temporaryEntities[text] else { return nil }
            entity = inserted
            reference = .temporary(text, path: path)
        }
        return entity.isKind(of: destination) ? reference : nil
    }

    private static let objectIDPrefix = Array("graph://".utf8)

    private func isASCII(_ range: Range<Int>) -> Bool {
        !bytes[range].contains { $0 >= 0x80 }
    }
}
