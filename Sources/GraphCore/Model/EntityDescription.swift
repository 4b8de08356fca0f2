import Foundation

/// An entity of a model: a name, its own attributes and relationships, an optional parent
/// entity whose properties it inherits, and whether it is abstract.
///
/// Describe entities, then build an ``ObjectModel`` from them; the model resolves parents,
/// destinations and inverses, and from then on the entity is immutable:
///
/// ```swift
/// let animal = EntityDescription("Animal", isAbstract: true,
///                                attributes: [AttributeDescription("name", .string)])
/// let dog = EntityDescription("Dog", parent: "Animal",
///                             attributes: [AttributeDescription("barks", .bool, defaultValue: true)])
/// let model = try ObjectModel(entities: [animal, dog])
/// ```
///
/// In a resolved entity, ``properties`` lists the inherited properties first, then its own;
/// a property keeps the same index in every sub-entity.
public final class EntityDescription: @unchecked Sendable, CustomStringConvertible {
    // Safe to share: the definition is immutable, and the resolved fields below are written
    // only by `ObjectModel.init` before the model (and so this entity) is published; an
    // entity that already belongs to a model is refused by any other `ObjectModel.init`.

    /// The entity's name, unique in its model.
    public let name: String
    /// The name of the parent entity, if any.
    public let parentName: String?
    /// Whether the entity is abstract: it has no objects of its own, only its sub-entities do.
    public let isAbstract: Bool
    /// The attributes this entity declares itself (not the inherited ones).
    public let ownAttributes: [AttributeDescription]
    /// The relationships this entity declares itself (not the inherited ones).
    public let ownRelationships: [RelationshipDescription]
    /// The name this entity had in an earlier version of the model, when it was renamed (Core
    /// Data's renaming identifier). It does not change the version hash.
    public let renamingIdentifier: String?
    /// Sets of properties whose values together must be unique among the entity's objects
    /// (Core Data's uniqueness constraints), each a list of property names. Kept as data.
    public let uniquenessConstraints: [[String]]
    /// The indexes the entity asks for (Core Data's fetch indexes). Kept as data.
    public let fetchIndexes: [FetchIndexDescription]
    /// Core Data's version hash modifier: any change to it changes the version hash.
    public let versionHashModifier: String?
    /// Free key-value pairs for the app (Core Data's `userInfo`).
    public let userInfo: [String: String]

    // MARK: Resolved by ObjectModel

    /// The model this entity belongs to; nil until a model is built from it.
    public internal(set) weak var model: ObjectModel?
    /// The parent entity, once resolved.
    public internal(set) var parent: EntityDescription?
    /// The names of the entities whose parent this is.
    public internal(set) var subentityNames: [String] = []
    /// All properties, inherited first, in storage order.
    public internal(set) var properties: [PropertyDescription] = []
    /// The transient attributes, inherited first: part of the model, never stored or sent
    /// (see ``AttributeDescription/isTransient``).
    public internal(set) var transientAttributes: [AttributeDescription] = []
    /// A stable hash of this entity's schema (its name, parent, properties and their types),
    /// independent of the order of the properties in a model file.
    public internal(set) var versionHash: String = ""

    var indexByName: [String: Int] = [:]
    /// Property names in storage order.
    public internal(set) var propertyNames: [String] = []
    /// Each property's shape, in storage order: plain values, for the encoders that walk every
    /// property of many objects.
    public internal(set) var propertyShapes: [PropertyShape] = []
    /// For each property index: the attribute's type and optionality (nil for a relationship).
    /// Plain values, so hot paths read them without retaining the descriptions' strings.
    var attributeSlots: [AttributeSlot?] = []
    /// The values a new object starts with (see `initialValues`).
    var initialValuesCache: [Value] = []

    struct AttributeSlot {
        let type: AttributeType
        let isOptional: Bool
    }
    /// For each property index: the attribute's value rules (min, max, pattern), if it has any.
    var valueRules: [AttributeValueRules?] = []
    /// For each property index: the index of the inverse relationship in the destination, if any.
    var inverseIndices: [Int?] = []
    /// For each property index: the index of the destination entity in `model.entities`.
    var destinationIndices: [Int?] = []
    /// Indexes of the relationships in `properties`.
    public internal(set) var relationshipIndices: [Int] = []
    /// The hash of the root entity's name: objects of one hierarchy share a reference space.
    var rootNameHash: Int = 0
    var isResolved = false

    /// Describes an entity.
    ///
    /// - Parameters:
    ///   - name: The entity's name.
    ///   - parent: The name of the entity it inherits properties from.
    ///   - isAbstract: Whether only its sub-entities have objects.
    ///   - attributes: The attributes it declares itself.
    ///   - relationships: The relationships it declares itself.
    ///   - renamingIdentifier: The entity's name in the earlier model version it was renamed from.
    ///   - uniquenessConstraints: Sets of property names whose values together are unique.
    ///   - fetchIndexes: The indexes the entity asks for.
    ///   - versionHashModifier: Any text; changing it changes the version hash.
    ///   - userInfo: Free key-value pairs.
    public init(
        _ name: String,
        parent: String? = nil,
        isAbstract: Bool = false,
        attributes: [AttributeDescription] = [],
        relationships: [RelationshipDescription] = [],
        renamingIdentifier: String? = nil,
        uniquenessConstraints: [[String]] = [],
        fetchIndexes: [FetchIndexDescription] = [],
        versionHashModifier: String? = nil,
        userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.parentName = parent
        self.isAbstract = isAbstract
        self.ownAttributes = attributes
        self.ownRelationships = relationships
        self.renamingIdentifier = renamingIdentifier
        self.uniquenessConstraints = uniquenessConstraints
        self.fetchIndexes = fetchIndexes
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
    }

    /// A new, unresolved entity with this one's definition, for another model.
    var unresolvedCopy: EntityDescription {
        EntityDescription(name, parent: parentName, isAbstract: isAbstract, attributes: ownAttributes,
                          relationships: ownRelationships, renamingIdentifier: renamingIdentifier,
                          uniquenessConstraints: uniquenessConstraints, fetchIndexes: fetchIndexes,
                          versionHashModifier: versionHashModifier, userInfo: userInfo)
    }

    /// `entity <name>`, for messages.
    public var description: String { "entity \(name)" }

    /// The attributes of this entity, inherited ones included.
    public var attributes: [AttributeDescription] { properties.compactMap(\.attribute) }

    /// The relationships of this entity, inherited ones included.
    public var relationships: [RelationshipDescription] { properties.compactMap(\.relationship) }

    /// The property with this name, inherited ones included.
    public func property(named name: String) -> PropertyDescription? {
        indexByName[name].map { properties[$0] }
    }

    /// The storage index of the property with this name.
    public func index(ofProperty name: String) -> Int? {
        // For the usual handful of properties, comparing names beats hashing the key.
        if propertyNames.count <= 16 { return propertyNames.firstIndex(of: name) }
        return indexByName[name]
    }

    /// Whether this entity is `other` or one of its descendants.
    public func isKind(of other: EntityDescription) -> Bool {
        var current: EntityDescription? = self
        while let entity = current {
            if entity === other || entity.name == other.name { return true }
            current = entity.parent
        }
        return false
    }

    /// The entity at the other end of the relationship at `index`.
    func destination(ofPropertyAt index: Int) -> EntityDescription? {
        guard let destinationIndex = destinationIndices[index], let model else { return nil }
        return model.entities[destinationIndex]
    }

    /// The root of this entity's hierarchy.
    var root: EntityDescription {
        var entity = self
        while let parent = entity.parent { entity = parent }
        return entity
    }
}
