import Foundation
import GraphCore
import JSONCore

/// The fast path of ``ImportDecoder``: one object line decoded straight from the parser's
/// events into values, with no `JSONValue` tree and no String for an ID or a key.
///
/// It takes only what it can decode without doubt: the four keys once each, `id` before
/// `values`, every property once, every value of its property's type, relationship targets of
/// the right entity. Anything else (an error, or an unusual but valid line) makes it give up
/// (``decode(_:line:)`` returns nil), and the caller decodes the line again the slow way, which
/// accepts exactly the same lines and names each problem. So it must never accept a line that the
/// slow path refuses, and must build the same object from a line that both accept.
final class ImportLineEvents: JSONEventHandler {
    /// How the properties of one entity are read.
    struct EntityPlan {
        let entity: EntityDescription
        let name: [UInt8]
        /// Property names as UTF-8, in property order.
        let propertyNames: [[UInt8]]
        /// Per property: nil for an attribute, else the relationship's destination entity.
        let destinations: [EntityDescription?]
        /// Per property: whether a to-many relationship.
        let toMany: [Bool]
        /// Per property: the attribute's type (unused for a relationship).
        let types: [AttributeType]
        /// The values of a line that names no property.
        let defaults: [Value]
    }

    /// Stops the parse: the line is left to the slow path.
    private struct GiveUp: Error {}

    private let model: ObjectModel
    private let storeUUID: String
    /// `graph://<storeUUID>/`.
    private let prefix: [UInt8]
    private let plans: [EntityPlan]

    // The line being decoded.
    private var depth = 0
    private enum Slot { case none, id, entity, version, values, property(Int), element(Int) }
    private var slot = Slot.none
    private var seenKeys = 0
    private var plan: Int?
    private var entityNamed: Int?
    private var reference: Int64 = 0
    private var version: Int64 = 0
    private var values: [Value] = []
    private var seenProperties: [Bool] = []
    private var elements: [ObjectID] = []
    private var complete = false

    init(model: ObjectModel, storeUUID: String) {
        self.model = model
        self.storeUUID = storeUUID
        prefix = Array("graph://\(storeUUID)/".utf8)
        plans = model.entities.filter { !$0.isAbstract }.map { entity in
            var destinations: [EntityDescription?] = [], toMany: [Bool] = [], types: [AttributeType] = [], defaults: [Value] = []
            for property in entity.properties {
                switch property {
                case .attribute(let attribute):
                    destinations.append(nil)
                    toMany.append(false)
                    types.append(attribute.type)
                    defaults.append(attribute.defaultValue ?? .null)
                case .relationship(let relationship):
                    // A relationship whose destination the model lacks: left to the slow path (nil marks an attribute).
                    destinations.append(model.entitiesByName[relationship.destination] ?? entity)
                    toMany.append(relationship.isToMany)
                    types.append(.string)
                    defaults.append(relationship.isToMany ? .objects([]) : .null)
                }
            }
            return EntityPlan(entity: entity, name: Array(entity.name.utf8), propertyNames: entity.properties.map { Array($0.name.utf8) },
                              destinations: destinations, toMany: toMany, types: types, defaults: defaults)
        }
    }

    /// Whether every relationship's destination is in the model (else the fast path is off).
    var isUsable: Bool {
        model.entities.allSatisfy { entity in
            entity.properties.allSatisfy { property in
                guard case .relationship(let relationship) = property else { return true }
                return model.entitiesByName[relationship.destination] != nil
            }
        }
    }

    /// The object of one line, or nil when the slow path must decide.
    func decode(_ bytes: UnsafeRawBufferPointer, line: Int) -> ImportedObject? {
        depth = 0
        slot = .none
        seenKeys = 0
        plan = nil
        entityNamed = nil
        version = 0
        complete = false
        do {
            try JSONEventParser.parse(bytes, handler: self)
        } catch {
            return nil
        }
        guard complete, seenKeys == 0b1111, let plan, entityNamed == plan else { return nil }
        return ImportedObject(entity: plans[plan].entity, reference: reference, version: version, values: values, line: line)
    }

    // MARK: - Events

    func startObject() throws {
        depth += 1
        switch (depth, slot) {
        case (1, .none): return
        case (2, .values):
            guard let plan else { throw GiveUp() }
            values = plans[plan].defaults
            seenProperties = Array(repeating: false, count: values.count)
        default: throw GiveUp()
        }
    }

    func endObject() throws {
        depth -= 1
        switch depth {
        case 0: complete = true
        case 1: slot = .none
        default: throw GiveUp()
        }
    }

    func key(_ bytes: UnsafeRawBufferPointer) throws {
        if depth == 1 {
            let bit: Int
            if bytes.equals("id") { bit = 1; slot = .id }
            else if bytes.equals("entity") { bit = 2; slot = .entity }
            else if bytes.equals("version") { bit = 4; slot = .version }
            else if bytes.equals("values") { bit = 8; slot = .values }
            else { throw GiveUp() }
            guard seenKeys & bit == 0 else { throw GiveUp() }
            seenKeys |= bit
            return
        }
        guard depth == 2, let plan else { throw GiveUp() }
        let names = plans[plan].propertyNames
        var index = 0
        while index < names.count, !bytes.equals(names[index]) { index += 1 }
        guard index < names.count, !seenProperties[index] else { throw GiveUp() }
        seenProperties[index] = true
        slot = .property(index)
    }

    func startArray() throws {
        depth += 1
        guard depth == 3, case .property(let index) = slot, let plan, plans[plan].toMany[index] else { throw GiveUp() }
        elements.removeAll(keepingCapacity: true)
        slot = .element(index)
    }

    func endArray() throws {
        depth -= 1
        guard depth == 2, case .element(let index) = slot else { throw GiveUp() }
        values[index] = .objects(elements)
        slot = .none
    }

    func null() throws {
        guard depth == 2, case .property(let index) = slot, let plan, !plans[plan].toMany[index] else { throw GiveUp() }
        values[index] = .null
    }

    func bool(_ value: Bool) throws {
        guard depth == 2, case .property(let index) = slot, let plan, plans[plan].destinations[index] == nil,
              plans[plan].types[index] == .bool else { throw GiveUp() }
        values[index] = .bool(value)
    }

    func number(_ text: UnsafeRawBufferPointer) throws {
        switch (depth, slot) {
        case (1, .version):
            // Digits only, as `Int64(text)` reads them, from 1 to 10^18 - 1.
            guard !text.isEmpty, text.count <= 18, text.allSatisfy({ $0 &- 0x30 < 10 }),
                  let parsed = JSONNumberText.integer(text), parsed >= 1 else { throw GiveUp() }
            version = parsed
        case (2, .property(let index)):
            guard let plan, plans[plan].destinations[index] == nil,
                  let value = ValueForm.value(number: text, as: plans[plan].types[index]) else { throw GiveUp() }
            values[index] = value
        default: throw GiveUp()
        }
    }

    func string(_ bytes: UnsafeRawBufferPointer) throws {
        switch (depth, slot) {
        case (1, .id):
            guard let parsed = parseID(bytes) else { throw GiveUp() }
            plan = parsed.plan
            reference = parsed.reference
        case (1, .entity):
            var index = 0
            while index < plans.count, !bytes.equals(plans[index].name) { index += 1 }
            guard index < plans.count else { throw GiveUp() }
            entityNamed = index
        case (2, .property(let index)):
            guard let plan else { throw GiveUp() }
            if let destination = plans[plan].destinations[index] {
                guard !plans[plan].toMany[index] else { throw GiveUp() }
                values[index] = .object(try target(bytes, destination))
            } else {
                guard let value = ValueForm.value(string: bytes, as: plans[plan].types[index]) else { throw GiveUp() }
                values[index] = value
            }
        case (3, .element(let index)):
            guard let plan, let destination = plans[plan].destinations[index] else { throw GiveUp() }
            elements.append(try target(bytes, destination))
        default: throw GiveUp()
        }
    }

    // MARK: - IDs

    /// The ID of a relationship's target, of `destination` or a sub-entity of it.
    private func target(_ bytes: UnsafeRawBufferPointer, _ destination: EntityDescription) throws -> ObjectID {
        guard let parsed = parseID(bytes) else { throw GiveUp() }
        let entity = plans[parsed.plan].entity
        guard entity.isKind(of: destination) else { throw GiveUp() }
        return ObjectID(entity: entity, storeIdentifier: storeUUID, reference: .int(parsed.reference))
    }

    /// `graph://<storeUUID>/<Entity>/<reference>` with a concrete entity and a reference from 1
    /// to 2⁶³−1: the entity's plan and the reference.
    private func parseID(_ bytes: UnsafeRawBufferPointer) -> (plan: Int, reference: Int64)? {
        guard bytes.count > prefix.count, let base = bytes.baseAddress,
              UnsafeRawBufferPointer(start: base, count: prefix.count).equals(prefix) else { return nil }
        var slash = prefix.count
        while slash < bytes.count, bytes[slash] != UInt8(ascii: "/") { slash += 1 }
        let digits = bytes.count - slash - 1
        guard digits >= 1, digits <= 19 else { return nil }
        var number: Int64 = 0
        for offset in (slash + 1)..<bytes.count {
            let digit = bytes[offset] &- 0x30
            guard digit < 10 else { return nil }
            let (times, overflow) = number.multipliedReportingOverflow(by: 10)
            let (sum, overflowAgain) = times.addingReportingOverflow(Int64(digit))
            guard !overflow, !overflowAgain else { return nil }
            number = sum
        }
        guard number >= 1 else { return nil }
        let name = UnsafeRawBufferPointer(start: base + prefix.count, count: slash - prefix.count)
        var index = 0
        while index < plans.count, !name.equals(plans[index].name) { index += 1 }
        return index < plans.count ? (index, number) : nil
    }
}
