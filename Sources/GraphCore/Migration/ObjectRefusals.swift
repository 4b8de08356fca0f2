/// Gathers the objects that do not fit a migration, by entity, property and reason, to
/// report each group once with the first few objects named.
struct ObjectRefusals {
    /// How many objects a refusal names before it says "and N more".
    static let namedObjects = 10

    private var order: [Key] = []
    private var objects: [Key: [String]] = [:]
    private var counts: [Key: Int] = [:]

    private struct Key: Hashable {
        let entity: String
        let property: String?
        let reason: String
    }

    var isEmpty: Bool { order.isEmpty }

    /// Records that `object` (its entity and reference) does not fit for `reason`.
    mutating func add(entity: String, property: String?, object: ReferenceObject, reason: String) {
        let key = Key(entity: entity, property: property, reason: reason)
        if objects[key] == nil { order.append(key) }
        counts[key, default: 0] += 1
        if objects[key, default: []].count < Self.namedObjects { objects[key, default: []].append(object.description) }
    }

    /// One refusal per group: `entity E, property "p": objects 3, 9 (and 5 more): reason`.
    var refusals: [MigrationRefusal] {
        order.map { key in
            let named = objects[key] ?? []
            let count = counts[key] ?? named.count
            let more = count > named.count ? " (and \(count - named.count) more)" : ""
            let noun = count == 1 ? "object" : "objects"
            return MigrationRefusal(entity: key.entity, property: key.property,
                                    reason: "\(noun) \(named.joined(separator: ", "))\(more): \(key.reason)")
        }
    }
}
