import Foundation

/// The identity of an object: its entity, its store and the store's reference for it.
///
/// An `ObjectID` is a small immutable value, the only thing that crosses contexts, threads
/// and the network. Its URI form is `graph://<storeUUID>/<Entity>/<reference>` for a
/// saved object and `graph:///<Entity>/t<UUID>` for an object not saved yet (temporary).
///
/// Two IDs are equal when they name the same store and reference within the same entity
/// hierarchy: `graph://S/Animal/7` and `graph://S/Dog/7` are one object.
public struct ObjectID: Sendable, Hashable, CustomStringConvertible {
    // One allocation per object, shared by every value that refers to it, keeps an ID at
    // 8 bytes inside attribute and relationship storage.
    final class Storage: Sendable {
        let entity: EntityDescription
        let storeIdentifier: String?
        let reference: ReferenceObject

        init(entity: EntityDescription, storeIdentifier: String?, reference: ReferenceObject) {
            self.entity = entity
            self.storeIdentifier = storeIdentifier
            self.reference = reference
        }
    }

    let storage: Storage

    /// A permanent ID, as a store makes it.
    public init(entity: EntityDescription, storeIdentifier: String, reference: ReferenceObject) {
        storage = Storage(entity: entity, storeIdentifier: storeIdentifier, reference: reference)
    }

    private init(temporaryFor entity: EntityDescription) {
        let token = "t" + UUID().uuidString.lowercased()
        storage = Storage(entity: entity, storeIdentifier: nil, reference: .string(token))
    }

    /// A new temporary ID for an object inserted but not yet saved.
    public static func temporary(for entity: EntityDescription) -> ObjectID {
        ObjectID(temporaryFor: entity)
    }

    /// The entity of the object (its concrete entity, never an abstract one).
    public var entity: EntityDescription { storage.entity }
    public var entityName: String { storage.entity.name }
    /// The UUID of the store that holds the object; nil for a temporary ID.
    public var storeIdentifier: String? { storage.storeIdentifier }
    /// The store's reference for the object (for a temporary ID, its `t<UUID>` token).
    public var referenceObject: ReferenceObject { storage.reference }
    /// Whether the object has not been saved yet.
    public var isTemporary: Bool { storage.storeIdentifier == nil }

    /// `graph://<storeUUID>/<Entity>/<reference>`, or `graph:///<Entity>/t<UUID>`.
    public var uriRepresentation: String {
        let reference = storage.reference.description
            .addingPercentEncoding(withAllowedCharacters: Self.referenceCharacters) ?? ""
        return "graph://\(storage.storeIdentifier ?? "")/\(storage.entity.name)/\(reference)"
    }

    public var description: String { uriRepresentation }

    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        if lhs.storage === rhs.storage { return true }
        return lhs.storage.reference == rhs.storage.reference
            && lhs.storage.storeIdentifier == rhs.storage.storeIdentifier
            && lhs.storage.entity.rootNameHash == rhs.storage.entity.rootNameHash
            && lhs.storage.entity.root.name == rhs.storage.entity.root.name
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.entity.rootNameHash)
        switch storage.reference {
        case .int(let i): hasher.combine(i)
        case .string(let s): hasher.combine(s)
        }
    }

    private static let referenceCharacters: CharacterSet = {
        var set = CharacterSet.alphanumerics
        set.insert(charactersIn: "-._~")
        return set
    }()

    /// Parses an ID from its URI form, resolving the entity in `model`.
    ///
    /// - Throws: ``GraphError/invalidObjectURI(_:reason:)`` naming what is wrong.
    public init(uri: String, model: ObjectModel) throws(GraphError) {
        let prefix = "graph://"
        guard uri.hasPrefix(prefix) else {
            throw .invalidObjectURI(uri, reason: "it does not start with 'graph://'")
        }
        let parts = uri.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw .invalidObjectURI(uri, reason: "expected graph://<store>/<Entity>/<reference>")
        }
        let store = String(parts[0])
        let entityName = String(parts[1])
        guard let entity = model.entitiesByName[entityName] else {
            throw .invalidObjectURI(uri, reason: "the model has no entity '\(entityName)'")
        }
        guard let rawReference = String(parts[2]).removingPercentEncoding, !rawReference.isEmpty else {
            throw .invalidObjectURI(uri, reason: "the reference is empty or badly percent-encoded")
        }
        if store.isEmpty {
            guard rawReference.hasPrefix("t"), UUID(uuidString: String(rawReference.dropFirst())) != nil else {
                throw .invalidObjectURI(uri, reason: "a temporary ID's reference must be 't' followed by a UUID")
            }
            storage = Storage(entity: entity, storeIdentifier: nil, reference: .string(rawReference))
        } else {
            storage = Storage(entity: entity, storeIdentifier: store, reference: ReferenceObject(pathComponent: rawReference))
        }
    }
}
