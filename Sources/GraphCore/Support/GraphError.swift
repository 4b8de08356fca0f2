import Foundation

/// An error of the object graph: a bad key or value, a failed validation, a conflict with
/// another save, a store that cannot be opened.
///
/// Every case carries what a user needs to find the fault: the entity, the key, the object.
public enum GraphError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A string that is not an object ID URI.
    case invalidObjectURI(String, reason: String)
    /// The model has no entity of this name.
    case unknownEntity(String)
    /// The entity has no property of this name.
    case unknownKey(entity: String, key: String)
    /// An attribute was given a value of another type.
    case typeMismatch(entity: String, key: String, expected: String, got: String)
    /// nil was written into an attribute or to-one relationship that is not optional.
    case requiredValue(entity: String, key: String)
    /// A relationship was given an object of an entity it does not lead to.
    case wrongDestination(entity: String, key: String, expected: String, got: String)
    /// The key names an attribute where a relationship was expected, or the other way round.
    case wrongKind(entity: String, key: String, expected: String)
    /// Abstract entities have no objects of their own.
    case abstractEntity(String)
    /// The object does not exist in the store (it may have been deleted by another context).
    case objectNotFound(ObjectID)
    /// The object was deleted in its context, or its context is gone.
    case objectInaccessible(ObjectID, reason: String)
    /// Objects of two different contexts cannot be related.
    case differentContexts(entity: String, key: String)
    /// The save was refused: the objects and properties listed are invalid.
    case validation([ValidationFailure])
    /// The objects were changed or deleted in the store since they were fetched.
    case conflict([Conflict])
    /// No store type is registered under this name.
    case unknownStoreType(String, registered: [String])
    /// The store was written for a model whose entities differ.
    case modelMismatch(entities: [String])
    /// The coordinator has no store to hold objects of this entity.
    case noStore(entity: String)
    /// The store was opened read-only.
    case readOnlyStore(String)
    /// A store reported a failure of its own (the message says what and where).
    case store(String)
    /// Nothing to undo or redo.
    case nothingToUndo
    /// The store has no integer reference left for a new object: references go up to
    /// 2^63 - 2, and `nextReference` 2^63 - 1 (`Int64.max`) means none is left.
    case referencesExhausted(store: String, entity: String, nextReference: Int64)
    /// The object is at the largest version (`Int64.max`): a save that changes it again
    /// would need a version past it.
    case versionExhausted(ObjectID, version: Int64)
    /// A fetch of `entity` ran past its ``FetchRequest/deadline`` and was stopped; it
    /// returned nothing.
    case timeLimitExceeded(entity: String)
    /// A fetch of `entity` read more than its ``FetchRequest/resultBytesLimit`` (`limit`
    /// bytes) from its store and was stopped; it returned nothing.
    case resultTooLarge(entity: String, limit: Int)
    /// A save would make two objects of `entity` (or its sub-entities) hold the same `values`
    /// for the uniqueness constraint on `attributes`: `objects` are the one kept or saved
    /// first and the one that clashes with it. Nothing was saved.
    case uniquenessViolation(entity: String, attributes: [String], values: [Value], objects: [ObjectID])

    /// What went wrong and where: the entity, the key, the object or the store.
    public var description: String {
        switch self {
        case .invalidObjectURI(let uri, let reason):
            return "'\(uri.prefix(200))' is not an object ID: \(reason)"
        case .unknownEntity(let name):
            return "the model has no entity named '\(name)'"
        case .unknownKey(let entity, let key):
            return "entity '\(entity)' has no property '\(key)'"
        case .typeMismatch(let entity, let key, let expected, let got):
            return "\(entity).\(key) holds \(expected) values, not \(got)"
        case .requiredValue(let entity, let key):
            return "\(entity).\(key) is required and cannot be nil"
        case .wrongDestination(let entity, let key, let expected, let got):
            return "\(entity).\(key) leads to \(expected) objects, not \(got)"
        case .wrongKind(let entity, let key, let expected):
            return "\(entity).\(key) is not \(expected)"
        case .abstractEntity(let name):
            return "entity '\(name)' is abstract: insert one of its sub-entities instead"
        case .objectNotFound(let id):
            return "object \(id) does not exist in its store (deleted?)"
        case .objectInaccessible(let id, let reason):
            return "object \(id) cannot be used: \(reason)"
        case .differentContexts(let entity, let key):
            return "\(entity).\(key) cannot relate objects of two different contexts"
        case .validation(let failures):
            return "the save was refused: " + failures.map(\.description).joined(separator: "; ")
        case .conflict(let conflicts):
            return "the save conflicts with changes saved meanwhile: "
                + conflicts.map(\.description).joined(separator: "; ")
        case .unknownStoreType(let type, let registered):
            return "no store type '\(type)' is registered (registered: \(registered.sorted().joined(separator: ", ")))"
        case .modelMismatch(let entities):
            return "the store was written for another model; these entities differ: "
                + entities.sorted().joined(separator: ", ")
        case .noStore(let entity):
            return "no store of the coordinator holds entity '\(entity)'"
        case .readOnlyStore(let store):
            return "store \(store) is read-only"
        case .store(let message):
            return message
        case .nothingToUndo:
            return "nothing to undo or redo"
        case .referencesExhausted(let store, let entity, let next):
            return "store \(store) has no reference left for a new \(entity) object "
                + "(next reference \(next); the largest a store gives is \(Int64.max - 1)); nothing was saved"
        case .versionExhausted(let id, let version):
            return "object \(id) is at version \(version), the largest a version can be: "
                + "it cannot be saved again; nothing was saved"
        case .timeLimitExceeded(let entity):
            return "the fetch of '\(entity)' ran past its deadline and was stopped before it finished; "
                + "nothing was returned (make the predicate cheaper or allow more time)"
        case .resultTooLarge(let entity, let limit):
            return "the fetch of '\(entity)' read more than \(limit) bytes of results and was stopped before it finished; "
                + "nothing was returned (fetch fewer objects at a time: a limit and an offset, or only their count)"
        case .uniquenessViolation(let entity, let attributes, let values, let objects):
            let pairs = zip(attributes, values).map { "\($0) = \(String($1.formatLiteral.prefix(128)))" }.joined(separator: ", ")
            return "two \(entity) objects would share \(pairs) (uniqueness constraint [\(attributes.joined(separator: ", "))]): "
                + objects.map { "\($0)" }.joined(separator: " and ") + "; nothing was saved"
        }
    }
}

/// One reason a save was refused.
public struct ValidationFailure: Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the value.
    public enum Reason: Sendable, Equatable {
        /// A required attribute or to-one relationship is nil.
        case missingValue
        /// The value does not fit the attribute's type.
        case wrongType(expected: String, got: String)
        /// A to-many relationship holds fewer objects than its minimum.
        case tooFew(minimum: Int, count: Int)
        /// A to-many relationship holds more objects than its maximum.
        case tooMany(maximum: Int, count: Int)
        /// The object is deleted but its deny relationship still holds these objects.
        case deleteDenied(blocking: [ObjectID])
        /// The value breaks a rule of its attribute (minimum, maximum, pattern); the text says
        /// how, e.g. `has 12 characters, more than its maximum 10`.
        case ruleBroken(String)
    }

    /// The invalid object.
    public var objectID: ObjectID
    /// The property at fault.
    public var key: String
    /// What is wrong with it.
    public var reason: Reason

    /// A failure of one property of one object.
    public init(objectID: ObjectID, key: String, reason: Reason) {
        self.objectID = objectID
        self.key = key
        self.reason = reason
    }

    /// The object, the property and what is wrong with its value.
    public var description: String {
        let subject = "\(objectID.entityName).\(key) of \(objectID)"
        switch reason {
        case .missingValue:
            return "\(subject) is required but nil"
        case .wrongType(let expected, let got):
            return "\(subject) must be \(expected), not \(got)"
        case .tooFew(let minimum, let count):
            return "\(subject) holds \(count) objects, fewer than its minimum \(minimum)"
        case .tooMany(let maximum, let count):
            return "\(subject) holds \(count) objects, more than its maximum \(maximum)"
        case .ruleBroken(let how):
            return "\(subject) \(how)"
        case .deleteDenied(let blocking):
            return "\(subject) denies the deletion while it holds "
                + blocking.map(\.description).joined(separator: ", ")
        }
    }
}

/// An object whose version in the store is not the one its context fetched.
public struct Conflict: Sendable, Equatable, CustomStringConvertible {
    /// The object that changed in the store.
    public var objectID: ObjectID
    /// The version the saving context had.
    public var expectedVersion: Int64
    /// The version in the store now; nil when the object was deleted there.
    public var currentVersion: Int64?

    /// A conflict of one object.
    public init(objectID: ObjectID, expectedVersion: Int64, currentVersion: Int64?) {
        self.objectID = objectID
        self.expectedVersion = expectedVersion
        self.currentVersion = currentVersion
    }

    /// The object and both versions, or that it was deleted from the store.
    public var description: String {
        if let currentVersion {
            return "\(objectID) was at version \(expectedVersion), the store has version \(currentVersion)"
        }
        return "\(objectID) was at version \(expectedVersion) and has been deleted from the store"
    }
}
