extension EntityDescription {
    /// The values a uniqueness constraint's attributes hold in `values` (an object of this
    /// entity, in property order); nil when one is nil or missing: a nil takes part in no
    /// constraint (docs/MODEL.md). The key two objects must not share.
    public func constraintValues(_ constraint: [String], in values: [Value]) -> [Value]? {
        var result: [Value] = []
        result.reserveCapacity(constraint.count)
        for key in constraint {
            guard let index = index(ofProperty: key), index < values.count, !values[index].isNull else { return nil }
            result.append(values[index])
        }
        return result
    }
}
