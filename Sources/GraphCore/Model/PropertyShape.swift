/// What a property is, in plain values: what code that walks every property of many objects
/// (the encoders of answers and files) needs to know, read without copying the property's
/// description, whose strings, optional values and dictionary each copy retains and releases.
public enum PropertyShape: Sendable, Hashable {
    /// An attribute of this type.
    case attribute(AttributeType)
    /// A relationship: to one object or to many, and whether its list has an order.
    case relationship(isToMany: Bool, isOrdered: Bool)

    /// The shape of `property`.
    public init(_ property: PropertyDescription) {
        switch property {
        case .attribute(let attribute): self = .attribute(attribute.type)
        case .relationship(let relationship): self = .relationship(isToMany: relationship.isToMany, isOrdered: relationship.isOrdered)
        }
    }
}
