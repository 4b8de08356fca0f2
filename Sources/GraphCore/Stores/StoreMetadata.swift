import Foundation

/// What a store records about itself: its type, its UUID, and the version hashes of the
/// model it was written for, plus free-form user metadata.
public struct StoreMetadata: Sendable, Equatable {
    /// The registered type name (`"InMemory"`, `"JSON"`, ...).
    public var storeType: String
    /// The store's UUID; it is part of every permanent object ID of the store.
    public var storeIdentifier: String
    /// Entity name → version hash of the model the store was written for; empty for a new store.
    public var entityVersionHashes: [String: String]
    /// The model's version hash, when known.
    public var modelVersionHash: String?
    /// Free-form metadata an application keeps with the store.
    public var userInfo: [String: String]

    /// Metadata of a store of `storeType`, with a new UUID unless one is given.
    public init(
        storeType: String,
        storeIdentifier: String = UUID().uuidString,
        entityVersionHashes: [String: String] = [:],
        modelVersionHash: String? = nil,
        userInfo: [String: String] = [:]
    ) {
        self.storeType = storeType
        self.storeIdentifier = storeIdentifier
        self.entityVersionHashes = entityVersionHashes
        self.modelVersionHash = modelVersionHash
        self.userInfo = userInfo
    }
}

/// Options for opening a store.
public struct StoreOptions: Sendable, Equatable {
    /// Open without taking the write lock; saving is refused.
    public var isReadOnly: Bool
    /// Options of a particular store type, by name (for example an auth token).
    public var values: [String: String]

    /// Options: writable, with no type-specific values, by default.
    public init(isReadOnly: Bool = false, values: [String: String] = [:]) {
        self.isReadOnly = isReadOnly
        self.values = values
    }
}
