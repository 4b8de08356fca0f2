/// A relationship of an entity: to-one, to-many or ordered to-many, with an inverse and a delete rule.
///
/// ```swift
/// RelationshipDescription("album", destination: "Album", inverse: "songs")
/// RelationshipDescription("songs", destination: "Song", inverse: "album",
///                         toMany: true, ordered: true, deleteRule: .cascade)
/// ```
public struct RelationshipDescription: Sendable, Hashable {
    /// The relationship's name, unique among the entity's properties (inherited ones included).
    public var name: String
    /// The name of the entity on the other side.
    public var destination: String
    /// The name of the relationship on the destination entity that points back, if any.
    public var inverse: String?
    /// Whether it holds a list of objects (``Value/objects(_:)``) rather than one (``Value/object(_:)``).
    public var isToMany: Bool
    /// For to-many relationships: whether the order of the related objects is kept.
    public var isOrdered: Bool
    /// What deleting the source object does to the objects this relationship holds.
    public var deleteRule: DeleteRule
    /// Whether a to-one relationship may be nil (a to-many may be empty) when saved.
    public var isOptional: Bool
    /// For to-many relationships: the fewest related objects a saved object may have.
    public var minCount: Int?
    /// For to-many relationships: the most related objects a saved object may have.
    public var maxCount: Int?
    /// The name this relationship had in an earlier version of the model, when it was renamed
    /// (Core Data's renaming identifier). It does not change the entity's version hash.
    public var renamingIdentifier: String?
    /// Core Data's version hash modifier: any change to it changes the entity's version hash.
    public var versionHashModifier: String?
    /// Free key-value pairs for the app (Core Data's `userInfo`).
    public var userInfo: [String: String] = [:]

    /// Describes a relationship.
    ///
    /// - Parameters:
    ///   - name: The relationship's name.
    ///   - destination: The name of the entity it leads to.
    ///   - inverse: The name of the destination's relationship that points back; give one
    ///     wherever you can, so that both sides stay consistent.
    ///   - toMany: Whether it holds many objects (false: one).
    ///   - ordered: For a to-many relationship, whether the order of the objects is kept.
    ///   - deleteRule: What deleting the source does to the related objects (``DeleteRule/nullify`` by default).
    ///   - isOptional: Whether a to-one relationship may be nil when saved.
    ///   - minCount: For a to-many relationship, the fewest objects a saved object may hold.
    ///   - maxCount: For a to-many relationship, the most objects a saved object may hold.
    ///   - renamingIdentifier: The relationship's name in the earlier model version it was renamed from.
    public init(
        _ name: String,
        destination: String,
        inverse: String?,
        toMany: Bool = false,
        ordered: Bool = false,
        deleteRule: DeleteRule = .nullify,
        isOptional: Bool = true,
        minCount: Int? = nil,
        maxCount: Int? = nil,
        renamingIdentifier: String? = nil
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
        self.renamingIdentifier = renamingIdentifier
    }
}
