/// What a save does when objects it changed were saved by someone else since it read them.
///
/// Both merging policies go property by property: a property only one side changed takes
/// that side's value. A to-many relationship both sides changed keeps both sides' additions
/// and removals (the list has no single winner, and either list alone would leave inverses
/// pointing at objects it no longer holds). Where both sides set a to-one relationship, the
/// policy picks the winner and the losing side's object stops pointing back.
public enum MergePolicy: Sendable, Equatable {
    /// Fail with ``GraphError/conflict(_:)`` naming the objects and both versions (the default).
    case error
    /// Property by property, the store's newer values win; this context's changes to the
    /// other properties are kept and saved.
    case storeTrumps
    /// Property by property, this context's changes win; properties it did not change take
    /// the store's newer values.
    case objectTrumps
    /// ``objectTrumps``, and an inserted object that breaks a uniqueness constraint with an
    /// object already saved (or inserted before it in the same save) is merged into that one
    /// instead of failing the save: Core Data's `mergeByPropertyObjectTrump` on constraints.
    /// The existing object takes the inserted one's non-nil attributes and relationships
    /// (objects that pointed at the inserted one now point at it); the inserted object leaves
    /// the context, as if deleted before the save.
    case objectTrumpsMergingConstraints
}
