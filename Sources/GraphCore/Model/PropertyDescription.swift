/// A property of an entity: an attribute or a relationship.
public enum PropertyDescription: Sendable, Hashable {
    case attribute(AttributeDescription)
    case relationship(RelationshipDescription)

    public var name: String {
        switch self {
        case .attribute(let attribute): return attribute.name
        case .relationship(let relationship): return relationship.name
        }
    }

    public var attribute: AttributeDescription? {
        if case .attribute(let attribute) = self { return attribute }
        return nil
    }

    public var relationship: RelationshipDescription? {
        if case .relationship(let relationship) = self { return relationship }
        return nil
    }
}
