import Foundation

/// A typed attribute of a ``ManagedObject`` subclass.
///
/// ```swift
/// final class Song: ManagedObject {
///     @Attribute("title") var title: String
///     @Attribute("plays") var plays: Int
///     @Attribute("notes") var notes: String?
///     @Relationship("album") var album: Album?
/// }
/// try coordinator.register(Song.self, forEntity: "Song")   // checks every key and type
/// song.title = "Blue"
/// ```
///
/// Registration checks each declared key against the model, so reads and writes cannot hit
/// an unknown key or a wrong type. What is left: a non-optional property reads its type's
/// placeholder (`""`, `0`, ...) while the attribute is nil, and a write the graph refuses
/// (nil into a required attribute, an object of another context) is reported by the next
/// `save()`, since a property setter cannot throw.
@propertyWrapper
public struct Attribute<T: AttributeValueConvertible>: ManagedPropertyDeclaration {
    /// The name of the attribute in the model.
    public let key: String

    /// Declares the attribute named `key`; ``StoreCoordinator/register(_:forEntity:)`` checks
    /// that the entity has it, with a type that fits `T`.
    public init(_ key: String) { self.key = key }

    public static subscript<Owner: ManagedObject>(
        _enclosingInstance object: Owner,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Owner, T>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Attribute<T>>
    ) -> T {
        get {
            let key = object[keyPath: storageKeyPath].key
            guard let value = try? object.value(forKey: key) else { return T.placeholder }
            return T(attributeValue: value) ?? T.placeholder
        }
        set {
            let key = object[keyPath: storageKeyPath].key
            do {
                try object.setValue(newValue.attributeValue, forKey: key)
            } catch {
                object.context?.deferError(error)
            }
        }
    }

    /// Only usable inside a `ManagedObject` subclass (through the subscript above).
    @available(*, unavailable, message: "@Attribute is only available on ManagedObject subclasses")
    public var wrappedValue: T {
        get { T.placeholder }
        set {}
    }

    func check(against entity: EntityDescription) throws(GraphError) {
        guard let property = entity.property(named: key) else {
            throw .unknownKey(entity: entity.name, key: key)
        }
        guard case .attribute(let attribute) = property else {
            throw .wrongKind(entity: entity.name, key: key, expected: "an attribute (declared @Attribute)")
        }
        guard T.attributeTypes.contains(attribute.type) else {
            throw .typeMismatch(entity: entity.name, key: key, expected: attribute.type.rawValue, got: "\(T.self)")
        }
    }
}

/// A typed relationship of a ``ManagedObject`` subclass: `Album?` for a to-one,
/// `[Song]` for a to-many (in order for an ordered one).
@propertyWrapper
public struct Relationship<T: RelationshipValueConvertible>: ManagedPropertyDeclaration {
    /// The name of the relationship in the model.
    public let key: String

    /// Declares the relationship named `key`; ``StoreCoordinator/register(_:forEntity:)`` checks
    /// that the entity has it, to-one for an optional and to-many for an array.
    public init(_ key: String) { self.key = key }

    public static subscript<Owner: ManagedObject>(
        _enclosingInstance object: Owner,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Owner, T>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Relationship<T>>
    ) -> T {
        get {
            let key = object[keyPath: storageKeyPath].key
            let objects = T.isToMany
                ? (try? object.objects(forKey: key)) ?? []
                : ((try? object.object(forKey: key)) ?? nil).map { [$0] } ?? []
            return T(relatedObjects: objects)
        }
        set {
            let key = object[keyPath: storageKeyPath].key
            do {
                if T.isToMany {
                    try object.setObjects(newValue.relatedObjects, forKey: key)
                } else {
                    try object.setObject(newValue.relatedObjects.first, forKey: key)
                }
            } catch {
                object.context?.deferError(error)
            }
        }
    }

    @available(*, unavailable, message: "@Relationship is only available on ManagedObject subclasses")
    public var wrappedValue: T {
        get { T(relatedObjects: []) }
        set {}
    }

    func check(against entity: EntityDescription) throws(GraphError) {
        guard let property = entity.property(named: key) else {
            throw .unknownKey(entity: entity.name, key: key)
        }
        guard case .relationship(let relationship) = property else {
            throw .wrongKind(entity: entity.name, key: key, expected: "a relationship (declared @Relationship)")
        }
        guard relationship.isToMany == T.isToMany else {
            throw .wrongKind(entity: entity.name, key: key,
                             expected: relationship.isToMany ? "to-one (declare it as an array)" : "to-many (declare it as an optional)")
        }
    }
}

/// The Swift shapes of a relationship: `Optional<Object>` (to-one) or `[Object]` (to-many).
public protocol RelationshipValueConvertible {
    /// Whether this shape is a to-many relationship's (an array).
    static var isToMany: Bool { get }
    /// The value made from the related objects (at most one for a to-one).
    init(relatedObjects: [ManagedObject])
    /// The related objects this value holds.
    var relatedObjects: [ManagedObject] { get }
}

extension Optional: RelationshipValueConvertible where Wrapped: ManagedObject {
    /// False: an optional object is a to-one relationship.
    public static var isToMany: Bool { false }
    /// The first related object, if it is a `Wrapped`.
    public init(relatedObjects: [ManagedObject]) { self = relatedObjects.first as? Wrapped }
    /// The object, if any, as a list of zero or one.
    public var relatedObjects: [ManagedObject] { self.map { [$0] } ?? [] }
}

extension Array: RelationshipValueConvertible where Element: ManagedObject {
    /// True: an array of objects is a to-many relationship.
    public static var isToMany: Bool { true }
    /// The related objects that are `Element`s, in order.
    public init(relatedObjects: [ManagedObject]) { self = relatedObjects.compactMap { $0 as? Element } }
    /// The objects, in order.
    public var relatedObjects: [ManagedObject] { self }
}

/// A typed property declaration that registration can check against the model.
protocol ManagedPropertyDeclaration {
    var key: String { get }
    func check(against entity: EntityDescription) throws(GraphError)
}

/// Checks a class's `@Attribute` and `@Relationship` declarations against an entity.
enum ManagedPropertyCheck {
    static func check(_ type: ManagedObject.Type, against entity: EntityDescription) throws(GraphError) {
        let sample = type.init(objectID: .temporary(for: entity), context: nil)
        var mirror: Mirror? = Mirror(reflecting: sample)
        while let current = mirror {
            for child in current.children {
                if let declaration = child.value as? ManagedPropertyDeclaration {
                    try declaration.check(against: entity)
                }
            }
            mirror = current.superclassMirror
        }
    }
}
