extension ObjectContext {
    /// Merges the inserted object of a uniqueness violation into the other object
    /// (``MergePolicy/objectTrumpsMergingConstraints``): `objects` is the violation's pair,
    /// the object kept first. False when the second is not an object this save inserts.
    func mergeByConstraint(_ objects: [ObjectID]) throws -> Bool {
        guard objects.count == 2, let inserted = registered[objects[1]], inserted.isInserted, !inserted.isDeleted else { return false }
        let kept = try existingObject(with: objects[0])
        guard kept !== inserted, !kept.isDeleted else { return false }
        for property in inserted.entity.properties {
            switch property {
            case .attribute(let attribute):
                guard !attribute.isTransient, kept.entity.property(named: attribute.name) != nil else { continue }
                let value = try inserted.value(forKey: attribute.name)
                if !value.isNull { try kept.setValue(value, forKey: attribute.name) }
            case .relationship(let relationship):
                guard kept.entity.property(named: relationship.name) != nil else { continue }
                if relationship.isToMany {
                    // Each related object moves over (its inverse now names the kept object).
                    for related in try inserted.objects(forKey: relationship.name) {
                        try inserted.remove(related, fromKey: relationship.name)
                        try kept.add(related, toKey: relationship.name)
                    }
                } else if let related = try inserted.object(forKey: relationship.name) {
                    try inserted.setObject(nil, forKey: relationship.name)
                    try kept.setObject(related, forKey: relationship.name)
                }
            }
        }
        // Nothing is left for its delete rules to act on.
        try delete(inserted)
        return true
    }
}
