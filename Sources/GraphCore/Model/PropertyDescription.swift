/// A property of an entity: an attribute or a relationship.
public enum PropertyDescription: Sendable, Hashable {
    /// An attribute.
    case attribute(AttributeDescription)
    /// A relationship.
    case relationship(RelationshipDescription)

    /// The property's name.
    public var name: String {
        switch self {
        case .attribute(let attribute): return attribute.name
        case .relationship(let relationship): return relationship.name
        }
    }

    /// The attribute, or nil for a relationship.
    public var attribute: AttributeDescription? {
        if case .attribute(let attribute) = self { return attribute }
        return nil
    }

    /// The relationship, or nil for an attribute.
    public var relationship: RelationshipDescription? {
        if case .relationship(let relationship) = self { return relationship }
        return nil
    }
}
