/// How one property of a destination entity gets its values from the source entity.
public struct PropertyMapping: Sendable, Equatable {
    /// The property's name in the destination model.
    public var name: String
    /// The name of the source property its values come from; nil for an added property.
    public var sourceName: String?
    /// What changes between the two, in the order they apply; empty when nothing does.
    public var changes: [PropertyChange]
    /// The value expression of a mapping model that computes the value from the source object
    /// (``MappingExpression``); nil when the value is the source property's or the initial one.
    public var expression: MappingExpression?

    /// A mapping of a destination property.
    public init(name: String, sourceName: String?, changes: [PropertyChange], expression: MappingExpression? = nil) {
        self.name = name
        self.sourceName = sourceName
        self.changes = changes
        self.expression = expression
    }
}

/// One change of a property between two model versions, all of them lightweight.
public enum PropertyChange: Sendable, Equatable, CustomStringConvertible {
    /// A new attribute or relationship: objects get `initial` (the default, nil or empty).
    case added(initial: Value)
    /// The values of the source property of that name (by ``AttributeDescription/renamingIdentifier``).
    case renamed(from: String)
    /// A numeric attribute of a wider type: every value converts exactly.
    case widened(from: AttributeType, to: AttributeType)
    /// An attribute that becomes required: nil values get the default.
    case madeRequired(default: Value)
    /// An attribute or to-one relationship that becomes optional.
    case madeOptional
    /// A to-one relationship that becomes required: objects holding nil are refused.
    case relationshipMadeRequired
    /// A to-one relationship that becomes to-many: each object holds a list of its one object (or none).
    case toOneToMany
    /// A to-many relationship that becomes to-one: allowed only when no object holds more than one.
    case toManyToOne
    /// An ordered to-many that becomes unordered, or the other way round (the stored order is kept).
    case orderingChanged(ordered: Bool)
    /// A relationship leading to another entity of the same hierarchy.
    case destinationChanged(from: String, to: String)
    /// A relationship whose inverse changes; its values stay, or are made from the inverse's when it is new.
    case inverseChanged(from: String?, to: String?)
    /// The values of a new relationship are made from those of its inverse, which the source has.
    case derivedFromInverse(String)
    /// A change that does not touch the data: a delete rule, a min/max count, a default value.
    case noDataChange(String)
    /// A mapping model computes the value from the source object with this value expression.
    case computed(expression: String)
    /// A mapping model leaves the property out (or gives it no value expression): every object gets `initial`.
    case notMapped(initial: Value)

    /// The change in words, for `docserver migrate`.
    public var description: String {
        switch self {
        case .added(let initial):
            switch initial {
            case .null: return "added (nil for existing objects)"
            case .objects(let ids) where ids.isEmpty: return "added (empty for existing objects)"
            default: return "added (existing objects get \(initial))"
            }
        case .renamed(let from): return "renamed from \"\(from)\""
        case .widened(let from, let to): return "widened from \(from) to \(to)"
        case .madeRequired(let value): return "made required (nil values get the default \(value))"
        case .madeOptional: return "made optional"
        case .relationshipMadeRequired: return "made required (every object must hold one)"
        case .toOneToMany: return "to-one becomes to-many"
        case .toManyToOne: return "to-many becomes to-one (every object must hold at most one)"
        case .orderingChanged(let ordered): return ordered ? "becomes ordered" : "becomes unordered"
        case .destinationChanged(let from, let to): return "destination changed from \(from) to \(to)"
        case .inverseChanged(let from, let to): return "inverse changed from \(from ?? "none") to \(to ?? "none")"
        case .derivedFromInverse(let inverse): return "filled from its inverse \"\(inverse)\""
        case .noDataChange(let what): return "\(what) (no data change)"
        case .computed(let expression): return "computed by the mapping model's \(expression)"
        case .notMapped(let initial):
            let value: String
            switch initial {
            case .null: value = "nil"
            case .objects(let ids) where ids.isEmpty: value = "empty"
            default: value = "\(initial)"
            }
            return "not filled by the mapping model (\(value) for every object)"
        }
    }
}
