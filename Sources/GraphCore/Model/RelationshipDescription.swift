/// A relationship of an entity: to-one, to-many or ordered to-many, with an inverse and a delete rule.
///
/// ```swift
/// RelationshipDescription("album", destination: "Album", inverse: "songs")
/// RelationshipDescription("songs", destination: "Song", inverse: "album",
///                         toMany: true, ordered: true, deleteRule: .cascade)
/// ```
public struct RelationshipDescription: Sendable, Hashable {
    public var name: String
    /// The name of the entity on the other side.
    public var destination: String
    /// The name of the relationship on the destination entity that points back, if any.
    public var inverse: String?
    public var isToMany: Bool
    /// For to-many relationships: whether the order of the related objects is kept.
    public var isOrdered: Bool
    public var deleteRule: DeleteRule
    /// Whether a to-one relationship may be nil (a to-many may be empty) when saved.
    public var isOptional: Bool
    /// For to-many relationships: the fewest related objects a saved object may have.
    public var minCount: Int?
    /// For to-many relationships: the most related objects a saved object may have.
    public var maxCount: Int?

    public init(
        _ name: String,
        destination: String,
        inverse: String?,
        toMany: Bool = false,
        ordered: Bool = false,
        deleteRule: DeleteRule = .nullify,
        isOptional: Bool = true,
        minCount: Int? = nil,
        maxCount: Int? = nil
    ) {
        self.name = name
        self.destination = destination
        self.inverse = inverse
        self.isToMany = toMany
        self.isOrdered = ordered
        self.deleteRule = deleteRule
        self.isOptional = isOptional
        self.minCount = minCount
        self.maxCount = maxCount
    }
}
