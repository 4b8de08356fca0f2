/// The checks a save makes of one object's values, on the values alone: what a context checks
/// of each object it saves (``ObjectContext/validationFailures()``) and what a writer that makes
/// new snapshots without a context (the server's direct updates) checks of each snapshot.
extension ObjectSnapshot {
    /// Required values, types, value rules (minimum, maximum, pattern) and to-many counts.
    public func validationFailures() -> [ValidationFailure] {
        Self.validationFailures(of: values, objectID: objectID)
    }

    /// ``validationFailures()`` of `values`, indexed as `objectID.entity.properties`.
    static func validationFailures(of values: [Value], objectID: ObjectID) -> [ValidationFailure] {
        let entity = objectID.entity
        let properties = entity.properties
        var failures: [ValidationFailure] = []
        for index in properties.indices where index < values.count {
            let value = values[index]
            if let reason = validate(value, against: properties[index]) {
                failures.append(ValidationFailure(objectID: objectID, key: properties[index].name, reason: reason))
            } else if let rules = entity.valueRules[index], !value.isNull, let broken = rules.violation(of: value) {
                failures.append(ValidationFailure(objectID: objectID, key: properties[index].name, reason: .ruleBroken(broken)))
            }
            if case .relationship(let relationship) = properties[index], relationship.isToMany,
               case .objects(let ids) = value, let maximum = relationship.maxCount, ids.count > maximum {
                failures.append(ValidationFailure(objectID: objectID, key: relationship.name,
                                                  reason: .tooMany(maximum: maximum, count: ids.count)))
            }
        }
        return failures
    }

    /// Why one value is invalid for its property (required, type, minimum count), if it is.
    private static func validate(_ value: Value, against property: PropertyDescription) -> ValidationFailure.Reason? {
        switch property {
        case .attribute(let attribute):
            if value.isNull { return attribute.isOptional ? nil : .missingValue }
            if value.isStored(as: attribute.type) { return nil }
            return .wrongType(expected: attribute.type.rawValue, got: value.kindName)
        case .relationship(let relationship):
            if !relationship.isToMany { return value.isNull && !relationship.isOptional ? .missingValue : nil }
            // As Core Data: a to-many is never nil, only empty, and its counts apply unless it is
            // optional and empty; a required to-many without a minimum may be empty
            // (docs/MODEL.md, "Counts on save").
            guard case .objects(let ids) = value else { return nil }
            if let minimum = relationship.minCount, ids.count < minimum, !(ids.isEmpty && relationship.isOptional) {
                return .tooFew(minimum: minimum, count: ids.count)
            }
            return nil
        }
    }
}
