/// How one entity of the destination model gets its objects from the source model.
public struct EntityMapping: Sendable, Equatable {
    /// The entity's name in the destination model.
    public var name: String
    /// The name of the source entity whose objects it takes; nil for an added entity.
    public var sourceName: String?
    /// One mapping per property of the destination entity (inherited ones included), in storage order.
    public var properties: [PropertyMapping]
    /// The source entity's properties that the destination entity no longer has (their values are dropped).
    public var removedProperties: [String]
    /// Changes of the entity itself: renamed, new parent, abstract or not.
    public var changes: [String]

    /// A mapping of a destination entity.
    public init(name: String, sourceName: String?, properties: [PropertyMapping],
                removedProperties: [String], changes: [String]) {
        self.name = name
        self.sourceName = sourceName
        self.properties = properties
        self.removedProperties = removedProperties
        self.changes = changes
    }

    /// Whether anything of the entity or its properties changes.
    public var hasChanges: Bool {
        sourceName != name || !removedProperties.isEmpty || !changes.isEmpty
            || properties.contains { !$0.changes.isEmpty || $0.sourceName != $0.name }
    }
}
