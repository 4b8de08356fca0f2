import Foundation

/// An object of the graph: an instance of an entity, living in exactly one ``ObjectContext``.
///
/// Read and write values by key, with errors instead of crashes:
///
/// ```swift
/// let song = try context.insert("Song")
/// try song.setValue("Blue", forKey: "title")
/// let title: String = try song.get("title")
/// try song.setObject(album, forKey: "album")     // album.songs now holds song too
/// ```
///
/// An object may be a *fault*: its values are loaded from the store the first time one is read.
/// Subclass it to give an entity typed properties (see ``Attribute`` and ``Relationship``).
open class ManagedObject: Hashable, CustomStringConvertible {
    /// The object's identity; temporary until its first save.
    public internal(set) var objectID: ObjectID
    /// The context the object belongs to; nil once that context is gone or the object was
    /// removed from it (deleted and saved, or deleted by another context).
    public var context: ObjectContext? { _context }
    /// Unowned for speed (a weak reference costs a side-table round trip on every access).
    /// Safe because of one rule the context keeps: an object leaves its context's registry
    /// only with this pointer set to nil, and a context clears it in every registered object
    /// when it is deinitialized. So a non-nil pointer always names a live context.
    unowned(unsafe) var _context: ObjectContext?
    /// The values in property order; empty while the object is a fault.
    var storage: [Value]
    /// The version of the store's record the values were read from (0 before the first save).
    public internal(set) var version: Int64
    var flags: Flags

    struct Flags: OptionSet {
        let rawValue: UInt8
        static let fault = Flags(rawValue: 1 << 0)
        static let inserted = Flags(rawValue: 1 << 1)
        static let updated = Flags(rawValue: 1 << 2)
        static let deleted = Flags(rawValue: 1 << 3)
        /// Listed in the context's change list (each object once).
        static let listed = Flags(rawValue: 1 << 4)
        static let changes: Flags = [.inserted, .updated, .deleted]
    }

    /// Makes an object for a context; contexts call this, users call `context.insert`.
    ///
    /// Subclasses inherit it; it must stay the only designated initializer they need.
    public required init(objectID: ObjectID, context: ObjectContext?) {
        self.objectID = objectID
        self._context = context
        self.storage = []
        self.version = 0
        self.flags = .fault
    }

    /// The object's entity.
    public var entity: EntityDescription { objectID.entity }

    /// Whether the values are not loaded yet.
    public var isFault: Bool { flags.contains(.fault) }
    /// Inserted since the last save.
    public var isInserted: Bool { flags.contains(.inserted) }
    /// Changed since it was fetched or last saved.
    public var isUpdated: Bool { flags.contains(.updated) && !flags.contains(.deleted) }
    /// Deleted since the last save.
    public var isDeleted: Bool { flags.contains(.deleted) }
    /// Whether the object has unsaved changes.
    public var hasChanges: Bool { !flags.isDisjoint(with: .changes) }

    /// Whether both are the same instance: a context holds one object per ID.
    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }
    /// Hashes the instance's identity, consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// The entity, the ID and the state of the object, for messages and debugging; a subclass
    /// may say more.
    open var description: String {
        let state = isFault ? " (fault)" : ""
        return "<\(entity.name) \(objectID)\(state)>"
    }

    // MARK: - Values by key

    /// The value of an attribute or relationship (relationships as ``Value/object(_:)`` or
    /// ``Value/objects(_:)``). Fires the fault if needed.
    public subscript(key: String) -> Value {
        get throws { try value(forKey: key) }
    }

    /// The value of an attribute or relationship. Fires the fault if needed.
    ///
    /// - Throws: ``GraphError/unknownKey(entity:key:)``; ``GraphError/objectNotFound(_:)``
    ///   when the object is a fault whose record is gone from the store.
    public func value(forKey key: String) throws -> Value {
        let index = try propertyIndex(key)
        try fulfill()
        return storage[index]
    }

    /// Writes an attribute, converting losslessly where it can (an integer into a double).
    ///
    /// - Throws: ``GraphError/unknownKey(entity:key:)``, ``GraphError/typeMismatch(entity:key:expected:got:)``,
    ///   ``GraphError/requiredValue(entity:key:)`` for nil into a required attribute; for a
    ///   relationship key the value must hold object IDs of objects registered in this context.
    public func setValue(_ value: Value, forKey key: String) throws {
        let context = try requireContext()
        try context.undoGroup { try context.setValue(value, forKey: key, of: self) }
    }

    /// The value of an attribute as a Swift type.
    ///
    /// ```swift
    /// let plays: Int = try song.get("plays")
    /// let notes: String? = try song.get("notes")
    /// ```
    ///
    /// - Throws: ``GraphError/unknownKey(entity:key:)``; ``GraphError/requiredValue(entity:key:)``
    ///   when the value is nil and `T` is not optional; ``GraphError/typeMismatch(entity:key:expected:got:)``
    ///   when the value does not fit `T` (an integer out of `T`'s range included).
    public func get<T: AttributeValueConvertible>(_ key: String, as type: T.Type = T.self) throws -> T {
        let value = try self.value(forKey: key)
        guard let typed = T(attributeValue: value) else {
            if value.isNull { throw GraphError.requiredValue(entity: entity.name, key: key) }
            throw GraphError.typeMismatch(entity: entity.name, key: key, expected: "\(T.self)", got: value.kindName)
        }
        return typed
    }

    /// Writes an attribute from a Swift value.
    ///
    /// ```swift
    /// try song.set("title", "So What")
    /// try song.set("plays", 12)
    /// ```
    ///
    /// - Throws: the errors of ``setValue(_:forKey:)``.
    public func set<T: AttributeValueConvertible>(_ key: String, _ value: T) throws {
        try setValue(value.attributeValue, forKey: key)
    }

    // MARK: - Relationships by key

    /// The object a to-one relationship leads to, or nil.
    ///
    /// - Throws: ``GraphError/unknownKey(entity:key:)``; ``GraphError/wrongKind(entity:key:expected:)``
    ///   when the key is not a to-one relationship; ``GraphError/objectInaccessible(_:reason:)``
    ///   when the object left its context; ``GraphError/objectNotFound(_:)`` when the related
    ///   object is gone from the store.
    public func object(forKey key: String) throws -> ManagedObject? {
        let context = try requireContext()
        let index = try relationshipIndex(key, toMany: false)
        try fulfill()
        guard case .object(let id) = storage[index] else { return nil }
        return try context.existingObject(with: id)
    }

    /// The objects a to-many relationship leads to, in order for an ordered relationship.
    ///
    /// - Throws: as ``object(forKey:)``, for a key that must be a to-many relationship.
    public func objects(forKey key: String) throws -> [ManagedObject] {
        let context = try requireContext()
        let index = try relationshipIndex(key, toMany: true)
        try fulfill()
        guard case .objects(let ids) = storage[index] else { return [] }
        return try ids.map { try context.existingObject(with: $0) }
    }

    /// Sets a to-one relationship; the inverse side follows at once.
    ///
    /// - Throws: ``GraphError/unknownKey(entity:key:)``; ``GraphError/wrongKind(entity:key:expected:)``
    ///   when the key is not a to-one relationship; ``GraphError/differentContexts(entity:key:)``
    ///   for an object of another context; ``GraphError/wrongDestination(entity:key:expected:got:)``
    ///   for an object of an entity the relationship does not lead to;
    ///   ``GraphError/objectInaccessible(_:reason:)`` for a deleted object.
    public func setObject(_ object: ManagedObject?, forKey key: String) throws {
        let context = try requireContext()
        let index = try relationshipIndex(key, toMany: false)
        try context.undoGroup { try context.setToOne(object, at: index, of: self) }
    }

    /// Replaces the objects of a to-many relationship; the inverse sides follow at once.
    ///
    /// - Throws: as ``setObject(_:forKey:)``, for a key that must be a to-many relationship.
    public func setObjects(_ objects: [ManagedObject], forKey key: String) throws {
        let context = try requireContext()
        let index = try relationshipIndex(key, toMany: true)
        try context.undoGroup { try context.setToMany(objects, at: index, of: self) }
    }

    /// Adds an object to a to-many relationship (at `position` in an ordered one, else at the end).
    ///
    /// - Throws: as ``setObject(_:forKey:)``, for a key that must be a to-many relationship.
    public func add(_ object: ManagedObject, toKey key: String, at position: Int? = nil) throws {
        let context = try requireContext()
        let index = try relationshipIndex(key, toMany: true)
        try context.undoGroup { try context.addToMany(object, at: index, of: self, position: position) }
    }

    /// Removes an object from a to-many relationship; the inverse side follows at once.
    ///
    /// - Throws: as ``setObject(_:forKey:)``, for a key that must be a to-many relationship.
    public func remove(_ object: ManagedObject, fromKey key: String) throws {
        let context = try requireContext()
        let index = try relationshipIndex(key, toMany: true)
        try context.undoGroup { try context.removeFromMany(object, at: index, of: self) }
    }

    // MARK: - Helpers

    /// The values as last fetched or saved, ignoring unsaved changes (fires the fault).
    ///
    /// - Throws: ``GraphError/objectInaccessible(_:reason:)`` when the object left its context;
    ///   ``GraphError/objectNotFound(_:)`` when it is a fault whose record is gone.
    public func committedValues() throws -> ObjectSnapshot {
        let context = try requireContext()
        try fulfill()
        return ObjectSnapshot(objectID: objectID, version: version, values: context.committedStorage(of: self))
    }

    /// The keys whose values differ from the committed ones.
    ///
    /// - Throws: the errors of ``committedValues()``.
    public func changedKeys() throws -> [String] {
        let committed = try committedValues().values
        return entity.properties.indices.filter { storage[$0] != committed[$0] }.map { entity.properties[$0].name }
    }

    func requireContext() throws(GraphError) -> ObjectContext {
        guard let context else {
            throw .objectInaccessible(objectID, reason: "it no longer belongs to a context")
        }
        return context
    }

    func propertyIndex(_ key: String) throws(GraphError) -> Int {
        guard let index = entity.index(ofProperty: key) else {
            throw .unknownKey(entity: entity.name, key: key)
        }
        return index
    }

    func relationshipIndex(_ key: String, toMany: Bool) throws(GraphError) -> Int {
        let index = try propertyIndex(key)
        guard case .relationship(let relationship) = entity.properties[index] else {
            throw .wrongKind(entity: entity.name, key: key, expected: "a relationship")
        }
        guard relationship.isToMany == toMany else {
            throw .wrongKind(entity: entity.name, key: key, expected: toMany ? "a to-many relationship" : "a to-one relationship")
        }
        return index
    }

    /// Loads the values if the object is a fault.
    func fulfill() throws {
        guard flags.contains(.fault) else { return }
        try requireContext().fulfillFault(self)
    }
}
