/// The stored state of one object: its ID, its version and its values in property order.
///
/// Snapshots are what crosses between a context and its store: relationship values hold
/// ``ObjectID``s, never objects, so a snapshot is a plain `Sendable` value.
public struct ObjectSnapshot: Sendable, Hashable {
    /// The object's ID.
    public var objectID: ObjectID
    /// 1 when first saved, +1 on every save that changes the object; 0 before the first save.
    public var version: Int64
    /// The values, indexed as `objectID.entity.properties`.
    public var values: [Value]

    /// A snapshot of an object's values at a version.
    public init(objectID: ObjectID, version: Int64, values: [Value]) {
        self.objectID = objectID
        self.version = version
        self.values = values
    }

    /// The value of the property with this name, or nil when the entity has no such property.
    public func value(forKey key: String) -> Value? {
        objectID.entity.index(ofProperty: key).map { values[$0] }
    }
}

extension EntityDescription {
    /// The values a new object of this entity starts with: defaults, nil, empty to-many lists.
    var initialValues: [Value] { initialValuesCache }

    /// Computes ``initialValues`` (once, when the model is built).
    func computeInitialValues() -> [Value] {
        properties.map { property in
            switch property {
            case .attribute(let attribute):
                return attribute.defaultValue.flatMap { $0.converted(to: attribute.type) } ?? .null
            case .relationship(let relationship):
                return relationship.isToMany ? .objects([]) : .null
            }
        }
    }
}
