extension ObjectModel {
    /// Whether this model's entity version hashes are exactly `hashes` (a store's recorded ones).
    public func matches(entityVersionHashes hashes: [String: String]) -> Bool {
        entitiesDiffering(from: hashes).isEmpty
    }

    /// The index of the model among `versions` (oldest first) that a store with these
    /// recorded entity version hashes was written with; the newest such when several match.
    public static func index(matching hashes: [String: String], in versions: [ObjectModel]) -> Int? {
        versions.lastIndex { $0.matches(entityVersionHashes: hashes) }
    }
}
