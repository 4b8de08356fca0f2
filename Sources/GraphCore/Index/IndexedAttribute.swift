/// A fetch index a store keeps for a concrete entity: the index's name and the attribute its
/// first element orders by.
struct IndexedAttribute: Sendable {
    let name: String
    let key: String
    /// The attribute's position in the entity's properties.
    let propertyIndex: Int
    /// How string keys are folded (`[c]`, `[d]`, `[cd]`); empty for a plain index.
    var folding: Comparison.Options = []

    /// The key of a value in this index (strings folded as it says).
    func key(of value: Value) -> IndexKey? {
        if !folding.isEmpty, case .string(let s) = value { return .string(StringFolding.fold(s, folding)) }
        return IndexKey(value)
    }

    /// Each binary fetch index of `entity` or an ancestor whose first element is an attribute
    /// of a covered type, one per attribute and folding (the entity's own first).
    static func all(of entity: EntityDescription) -> [IndexedAttribute] {
        var found: [IndexedAttribute] = []
        var declaring: EntityDescription? = entity
        while let current = declaring {
            for description in current.fetchIndexes {
                guard let first = description.elements.first, first.kind == .binary,
                      case .property(let key) = first.target,
                      let position = entity.index(ofProperty: key),
                      case .attribute(let attribute) = entity.properties[position],
                      IndexKey.covers(attribute.type)
                else { continue }
                var folding: Comparison.Options = []
                if first.caseInsensitive { folding.insert(.caseInsensitive) }
                if first.diacriticInsensitive { folding.insert(.diacriticInsensitive) }
                if attribute.type != .string { folding = [] }
                guard !found.contains(where: { $0.key == key && $0.folding == folding }) else { continue }
                found.append(IndexedAttribute(name: description.name, key: key, propertyIndex: position, folding: folding))
            }
            declaring = current.parent
        }
        return found
    }
}
