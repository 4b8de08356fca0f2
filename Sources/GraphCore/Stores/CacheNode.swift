/// An atomic store's record of one object: its ID, version and values in property order
/// (relationships as ``ObjectID``s).
open class CacheNode: PredicateRecord {
    /// The object's permanent ID.
    public let objectID: ObjectID
    /// The object's version: 1 when first saved, +1 on every save that changes it.
    public var version: Int64
    /// Values indexed as `objectID.entity.properties`.
    public var values: [Value]

    /// A node for an object's values at a version.
    public init(objectID: ObjectID, version: Int64, values: [Value]) {
        self.objectID = objectID
        self.version = version
        self.values = values
    }

    /// The value of a property by name; nil when the entity has no such property.
    public func value(forKey key: String) -> Value? {
        objectID.entity.index(ofProperty: key).map { values[$0] }
    }

    /// The value at a property index, for the predicate evaluator.
    public func predicateValue(at index: Int) throws -> Value { values[index] }

    var snapshot: ObjectSnapshot { ObjectSnapshot(objectID: objectID, version: version, values: values) }
}
