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

    /// What a commit changed in an ordered to-many relationship: the targets before are the
    /// targets after with the `replacing` targets from position `at` replaced by `was` (a target
    /// appended: `at` the old count, replacing 1, `was` empty).
    public struct Splice: Sendable, Equatable {
        public var at: Int
        public var replacing: Int
        public var was: [ObjectID]

        /// The splice that puts `was` back in place of `replacing` targets from `at`.
        public init(at: Int, replacing: Int, was: [ObjectID]) {
            self.at = at
            self.replacing = replacing
            self.was = was
        }

        /// The splice that turns `after` back into `before`: the targets outside their common
        /// beginning and end.
        public init(before: [ObjectID], after: [ObjectID]) {
            var prefix = 0
            while prefix < before.count, prefix < after.count, before[prefix] == after[prefix] { prefix += 1 }
            var suffix = 0
            while suffix < before.count - prefix, suffix < after.count - prefix,
                  before[before.count - 1 - suffix] == after[after.count - 1 - suffix] { suffix += 1 }
            self.init(at: prefix, replacing: after.count - prefix - suffix, was: Array(before[prefix..<(before.count - suffix)]))
        }
    }

    /// The object's version before the commit.
    public var version: Int64
    /// By index in the entity's ``EntityDescription/properties``: the value before the commit
    /// of each attribute and to-one relationship the commit changed.
    public var values: [Int: Value]
    /// By index in the entity's ``EntityDescription/properties``: what the commit changed in
    /// each unordered to-many relationship it changed.
    public var targets: [Int: TargetChange]
    /// By index in the entity's ``EntityDescription/properties``: what the commit changed in
    /// each ordered to-many relationship it changed.
    public var splices: [Int: Splice]

    /// The values before a commit: `values`, `targets` and `splices` by property index, at `version`.
    public init(version: Int64, values: [Int: Value] = [:], targets: [Int: TargetChange] = [:], splices: [Int: Splice] = [:]) {
        self.version = version
        self.values = values
        self.targets = targets
        self.splices = splices
    }

    /// The object `id` as it was before the commit, from `after`, the object after it (nil for
    /// one the commit deleted, whose values were all recorded): `after`'s values with the
    /// recorded ones in place of those the commit changed, in each changed unordered to-many
    /// relationship the targets it added taken out and those it removed put back (after the
    /// others), and each ordered one spliced back. Nil when a splice does not fit `after`'s
    /// targets (the values were recorded for another object after the commit).
    public func snapshot(of id: ObjectID, after: ObjectSnapshot?) -> ObjectSnapshot? {
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
        for (index, splice) in splices where before.indices.contains(index) {
            var now: [ObjectID] = []
            if case .objects(let targets) = before[index] { now = targets }
            guard splice.at >= 0, splice.replacing >= 0, splice.at <= now.count, splice.replacing <= now.count - splice.at else { return nil }
            now.replaceSubrange(splice.at..<(splice.at + splice.replacing), with: splice.was)
            before[index] = .objects(now)
        }
        return ObjectSnapshot(objectID: id, version: version, values: before)
    }
}
