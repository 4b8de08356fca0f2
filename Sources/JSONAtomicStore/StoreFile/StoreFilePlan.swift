import Foundation
import JSONCore
import GraphCore

/// What the reader and writer need to know about each property of each entity, worked out
/// once per load or save from the model: names as UTF-8, kinds, defaults, destinations and
/// inverses by index.
final class EntityPlan {
    let entity: EntityDescription
    /// The entity's index in `model.entities`.
    let index: Int
    let name: String
    let nameUTF8: [UInt8]
    let properties: [PropertyPlan]
    /// Indexes of the attributes that must have a value.
    let requiredAttributes: [Int]
    /// Property index by name, for entities with many properties.
    let indexByName: [String: Int]
    /// For each property: a number for the relationship (the same in every entity that
    /// inherits it), or -1 for an attribute; and the number of its inverse, or -1.
    var relationshipIDs: [Int] = []
    var inverseIDs: [Int] = []
    /// The same facts in plain memory, for the reader's hot path.
    let flat: FlatProperties

    init(entity: EntityDescription, index: Int, model: ObjectModel) {
        self.entity = entity
        self.index = index
        name = entity.name
        nameUTF8 = Array(entity.name.utf8)
        let properties = entity.properties.map { PropertyPlan($0, model: model) }
        self.properties = properties
        requiredAttributes = properties.indices.filter {
            if case .attribute = properties[$0].kind { return !properties[$0].isOptional }
            return false
        }
        indexByName = Dictionary(properties.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        flat = FlatProperties(properties, entityCount: model.entities.count)
    }

    deinit { flat.deallocate() }

}

/// The kind of a property in one byte.
enum PropertyKind: UInt8 {
    case int16, int32, int64, double, float, decimal, string, bool, date, binary, uuid, uri, toOne, toMany

    /// The kind of an attribute of this type.
    init(_ type: AttributeType) {
        switch type {
        case .int16: self = .int16
        case .int32: self = .int32
        case .int64: self = .int64
        case .double: self = .double
        case .float: self = .float
        case .decimal: self = .decimal
        case .string: self = .string
        case .bool: self = .bool
        case .date: self = .date
        case .binary: self = .binary
        case .uuid: self = .uuid
        case .uri: self = .uri
        }
    }

    /// The attribute type of this kind; nil for relationships.
    @inline(__always)
    var attributeType: AttributeType? {
        switch self {
        case .int16: return .int16
        case .int32: return .int32
        case .int64: return .int64
        case .double: return .double
        case .float: return .float
        case .decimal: return .decimal
        case .string: return .string
        case .bool: return .bool
        case .date: return .date
        case .binary: return .binary
        case .uuid: return .uuid
        case .uri: return .uri
        case .toOne, .toMany: return nil
        }
    }
}

/// Per-property facts of an entity in memory that is read without reference counting:
/// the reader touches them for every value of every object.
struct FlatProperties {
    let count: Int
    let entityCount: Int
    let kinds: UnsafeMutableBufferPointer<PropertyKind>
    /// The index of the inverse relationship in the destination, or -1.
    let inverses: UnsafeMutableBufferPointer<Int32>
    let inverseIsToMany: UnsafeMutableBufferPointer<Bool>
    let isOrdered: UnsafeMutableBufferPointer<Bool>
    /// `allowed[property * entityCount + entity]`: may objects of that entity be the destination.
    let allowed: UnsafeMutableBufferPointer<Bool>
    /// Indexes of the attributes that must have a value (the first `requiredCount`).
    let required: UnsafeMutableBufferPointer<Int32>
    let requiredCount: Int
    private let names: UnsafeMutableRawBufferPointer
    private let nameStarts: UnsafeMutableBufferPointer<Int>

    init(_ properties: [PropertyPlan], entityCount: Int) {
        count = properties.count
        self.entityCount = entityCount
        kinds = .allocate(capacity: max(count, 1))
        inverses = .allocate(capacity: max(count, 1))
        inverseIsToMany = .allocate(capacity: max(count, 1))
        isOrdered = .allocate(capacity: max(count, 1))
        allowed = .allocate(capacity: max(count * entityCount, 1))
        allowed.initialize(repeating: false)
        var required: [Int32] = []
        for (index, property) in properties.enumerated() {
            switch property.kind {
            case .attribute(let type):
                kinds[index] = PropertyKind(type)
                if !property.isOptional { required.append(Int32(index)) }
            case .toOne: kinds[index] = .toOne
            case .toMany: kinds[index] = .toMany
            }
            inverses[index] = property.inverseIndex.map(Int32.init) ?? -1
            inverseIsToMany[index] = property.inverseIsToMany
            isOrdered[index] = property.isOrdered
            for (entity, ok) in property.allowedDestinations.enumerated() { allowed[index * entityCount + entity] = ok }
        }
        requiredCount = required.count
        self.required = .allocate(capacity: max(required.count, 1))
        _ = self.required.initialize(from: required)
        let totalLength = properties.reduce(0) { $0 + $1.nameUTF8.count }
        names = .allocate(byteCount: max(totalLength, 1), alignment: 1)
        nameStarts = .allocate(capacity: count + 1)
        var offset = 0
        for (index, property) in properties.enumerated() {
            nameStarts[index] = offset
            property.nameUTF8.withUnsafeBytes { bytes in
                if !bytes.isEmpty { UnsafeMutableRawBufferPointer(rebasing: names[offset..<(offset + bytes.count)]).copyMemory(from: bytes) }
            }
            offset += property.nameUTF8.count
        }
        nameStarts[count] = offset
    }

    /// The index of the property whose name is `key`, trying `guess` first (keys usually come
    /// in property order), without making a String. For more than 16 properties a miss of
    /// the guess returns nil: look the name up by dictionary then.
    @inline(__always)
    func index(of key: UnsafeRawBufferPointer, guess: Int) -> Int? {
        if guess < count, key.equals(name(guess)) { return guess }
        if count > 16 { return nil }
        for index in 0..<count where key.equals(name(index)) { return index }
        return nil
    }

    @inline(__always)
    func name(_ index: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: names[nameStarts[index]..<nameStarts[index + 1]])
    }

    func deallocate() {
        kinds.deallocate()
        inverses.deallocate()
        inverseIsToMany.deallocate()
        isOrdered.deallocate()
        allowed.deallocate()
        required.deallocate()
        names.deallocate()
        nameStarts.deallocate()
    }
}

/// One property of an entity, as the store file needs it.
struct PropertyPlan {
    enum Kind {
        case attribute(AttributeType)
        case toOne
        case toMany(ordered: Bool)
    }

    let name: String
    let nameUTF8: [UInt8]
    let kind: Kind
    let isOptional: Bool
    /// The value when `values` has no key for the property: the default, nil, or no objects.
    let missingValue: Value
    /// For relationships: the destination's name, and for each entity index whether objects
    /// of that entity may be the destination (the destination or one of its sub-entities).
    let destinationName: String
    let allowedDestinations: [Bool]
    /// For relationships with an inverse: its name and index (the same in every entity that
    /// can be the destination), and whether it is to-many.
    let inverseName: String?
    let inverseIndex: Int?
    let inverseIsToMany: Bool

    init(_ property: PropertyDescription, model: ObjectModel) {
        name = property.name
        nameUTF8 = Array(property.name.utf8)
        switch property {
        case .attribute(let attribute):
            kind = .attribute(attribute.type)
            isOptional = attribute.isOptional
            missingValue = attribute.defaultValue.flatMap { $0.converted(to: attribute.type) } ?? .null
            destinationName = ""
            allowedDestinations = []
            inverseName = nil
            inverseIndex = nil
            inverseIsToMany = false
        case .relationship(let relationship):
            kind = relationship.isToMany ? .toMany(ordered: relationship.isOrdered) : .toOne
            isOptional = relationship.isOptional
            missingValue = relationship.isToMany ? .objects([]) : .null
            destinationName = relationship.destination
            let destination = model.entity(named: relationship.destination)
            allowedDestinations = model.entities.map { candidate in
                destination.map { candidate.isKind(of: $0) } ?? false
            }
            inverseName = relationship.inverse
            if let inverse = relationship.inverse, let destination {
                inverseIndex = destination.index(ofProperty: inverse)
                inverseIsToMany = destination.property(named: inverse)?.relationship?.isToMany ?? false
            } else {
                inverseIndex = nil
                inverseIsToMany = false
            }
        }
    }

    var isToMany: Bool {
        if case .toMany = kind { return true }
        return false
    }

    var isOrdered: Bool {
        if case .toMany(let ordered) = kind { return ordered }
        return false
    }
}

/// The plans of every entity of a model.
struct ModelPlan {
    let model: ObjectModel
    let entities: [EntityPlan]

    init(model: ObjectModel) {
        self.model = model
        entities = model.entities.enumerated().map { EntityPlan(entity: $1, index: $0, model: model) }
        // Number each relationship by the entity that declares it.
        var ids: [String: Int] = [:]
        func id(_ entity: EntityDescription?, _ name: String?) -> Int {
            guard var owner = entity, let name, owner.index(ofProperty: name) != nil else { return -1 }
            while let parent = owner.parent, parent.index(ofProperty: name) != nil { owner = parent }
            let key = owner.name + "\u{0}" + name
            if let known = ids[key] { return known }
            ids[key] = ids.count
            return ids.count - 1
        }
        for plan in entities {
            plan.relationshipIDs = plan.properties.map { $0.destinationName.isEmpty ? -1 : id(plan.entity, $0.name) }
            plan.inverseIDs = plan.properties.map {
                $0.destinationName.isEmpty ? -1 : id(model.entity(named: $0.destinationName), $0.inverseName)
            }
        }
    }

    /// The plan of the entity whose name is `key`.
    func entity(named key: UnsafeRawBufferPointer) -> EntityPlan? {
        entities.first { key.equals($0.nameUTF8) }
    }
}
