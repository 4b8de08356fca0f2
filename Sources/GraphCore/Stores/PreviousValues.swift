/// An object's values before a commit, as the commit's writer recorded them in a shared
/// history (``CommittedObject/previous``): the version the object had and the values of the
/// properties the commit changed (of every property, for an object it deleted). With the
/// object as it is after the commit they give the object as it was before it
/// (``snapshot(of:after:)``): what another writer needs to judge the commit on an object it
/// does not hold (did the object match a live query's predicate before?).
public struct PreviousValues: Sendable, Equatable {
    /// What a commit changed in a to-many relationship: the targets it added and those it removed.
    public struct TargetChange: Sendable, Equatable {
        public var added: [ObjectID]
        public var removed: [ObjectID]

        /// A change that added `added` and removed `removed`.
        public init(added: [ObjectID] = [], removed: [ObjectID] = []) {
            self.added = added
            self.removed = removed
        }
    }

    /// The object's version before the commit.
    public var version: Int64
    /// By index in the entity's ``EntityDescription/properties``: the value before the commit
    /// of each attribute, to-one relationship and ordered to-many relationship the commit changed.
    public var values: [Int: Value]
    /// By index in the entity's ``EntityDescription/properties``: what the commit changed in
    /// each unordered to-many relationship it changed.
    public var targets: [Int: TargetChange]

    /// The values before a commit: `values` and `targets` by property index, at `version`.
    public init(version: Int64, values: [Int: Value] = [:], targets: [Int: TargetChange] = [:]) {
        self.version = version
        self.values = values
        self.targets = targets
    }

    /// The object `id` as it was before the commit, from `after`, the object after it (nil for
    /// one the commit deleted, whose values were all recorded): `after`'s values with the
    /// recorded ones in place of those the commit changed, and in each changed unordered to-many
    /// relationship the targets it added taken out and those it removed put back (after the others).
    public func snapshot(of id: ObjectID, after: ObjectSnapshot?) -> ObjectSnapshot {
        let properties = id.entity.properties
        var before: [Value]
        if let after, after.values.count == properties.count {
            before = after.values
        } else {
            before = properties.map { $0.relationship?.isToMany == true ? .objects([]) : .null }
        }
        for (index, value) in values where before.indices.contains(index) { before[index] = value }
        for (index, change) in targets where before.indices.contains(index) {
            var now: [ObjectID] = []
            if case .objects(let targets) = before[index] { now = targets }
            if !change.added.isEmpty {
                let added = Set(change.added)
                now.removeAll { added.contains($0) }
            }
            before[index] = .objects(now + change.removed)
        }
        return ObjectSnapshot(objectID: id, version: version, values: before)
    }
}
