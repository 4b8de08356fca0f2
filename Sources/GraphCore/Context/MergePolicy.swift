/// What a save does when objects it changed were saved by someone else since it read them.
public enum MergePolicy: Sendable, Equatable {
    /// Fail with ``GraphError/conflict(_:)`` naming the objects and both versions (the default).
    case error
    /// Property by property, the store's newer values win; this context's changes to the
    /// other properties are kept and saved.
    case storeTrumps
    /// Property by property, this context's changes win; properties it did not change take
    /// the store's newer values.
    case objectTrumps
}
