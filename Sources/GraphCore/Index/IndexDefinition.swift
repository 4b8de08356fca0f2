/// One keyed element of an index a store keeps: an attribute of a covered type (its strings
/// folded as the element says) or a to-one relationship (keyed by the destination's ID).
struct IndexedElement: Sendable, Hashable {
    /// The property's name.
    let key: String
    /// The property's position in the entity's properties.
    let propertyIndex: Int
    /// How string keys are folded (`[c]`, `[d]`, `[cd]`); empty for a plain element.
    var folding: Comparison.Options = []

    /// The key of a value in this element (strings folded as it says); nil for a value of a
    /// kind no index covers.
    func key(of value: Value) -> IndexKey? {
        if !folding.isEmpty, case .string(let s) = value { return .string(StringFolding.fold(s, folding)) }
        return IndexKey(value)
    }

    /// The key of a record's values (missing values: nil).
    func key(in values: [Value]) -> IndexKey? {
        propertyIndex < values.count ? key(of: values[propertyIndex]) : nil
    }
}

/// A fetch index a store keeps for a concrete entity: the index's name and its keyed elements,
/// most significant first. An index's elements are keyed up to the first one no key covers
/// (an expression, an `rTree` element, a to-many relationship, an attribute of another type):
/// that one and those after it are left to the predicate.
struct IndexDefinition: Sendable {
    let name: String
    /// At least one.
    let elements: [IndexedElement]

    /// The first element's property name.
    var key: String { elements[0].key }
    /// The first element's folding.
    var folding: Comparison.Options { elements[0].folding }

    /// The compound key of a record's values: the first element's key and the others', or nil
    /// when one of them holds a value of a kind the index does not cover.
    func keys(in values: [Value]) -> (first: IndexKey, rest: [IndexKey])? {
        guard let first = elements[0].key(in: values) else { return nil }
        if elements.count == 1 { return (first, []) }
        var rest: [IndexKey] = []
        rest.reserveCapacity(elements.count - 1)
        for element in elements.dropFirst() {
            guard let key = element.key(in: values) else { return nil }
            rest.append(key)
        }
        return (first, rest)
    }

    /// Whether a uniqueness check of `entity`'s objects looks them up through this index: its
    /// first element is plain and begins a uniqueness constraint of `entity` or an ancestor
    /// (see `AtomicStore+Uniqueness.swift`).
    func servesUniqueness(of entity: EntityDescription) -> Bool {
        guard folding.isEmpty else { return false }
        var declaring: EntityDescription? = entity
        while let current = declaring {
            if current.uniquenessConstraints.contains(where: { $0.first == key }) { return true }
            declaring = current.parent
        }
        return false
    }

    /// Each binary fetch index of `entity` or an ancestor whose first element a key covers,
    /// once per list of keyed elements (the entity's own first).
    static func all(of entity: EntityDescription) -> [IndexDefinition] {
        var found: [IndexDefinition] = []
        var declaring: EntityDescription? = entity
        while let current = declaring {
            for description in current.fetchIndexes {
                var elements: [IndexedElement] = []
                for element in description.elements {
                    guard let keyed = Self.keyed(element, in: entity) else { break }
                    elements.append(keyed)
                }
                guard !elements.isEmpty, !found.contains(where: { $0.elements == elements }) else { continue }
                found.append(IndexDefinition(name: description.name, elements: elements))
            }
            declaring = current.parent
        }
        return found
    }

    /// The element as a store keys it, or nil when no key covers it.
    private static func keyed(_ element: FetchIndexDescription.Element, in entity: EntityDescription) -> IndexedElement? {
        guard element.kind == .binary, case .property(let key) = element.target,
              let position = entity.index(ofProperty: key) else { return nil }
        switch entity.properties[position] {
        case .attribute(let attribute):
            guard IndexKey.covers(attribute.type) else { return nil }
            var folding: Comparison.Options = []
            if attribute.type == .string {
                if element.caseInsensitive { folding.insert(.caseInsensitive) }
                if element.diacriticInsensitive { folding.insert(.diacriticInsensitive) }
            }
            return IndexedElement(key: key, propertyIndex: position, folding: folding)
        case .relationship(let relationship):
            guard !relationship.isToMany else { return nil }
            return IndexedElement(key: key, propertyIndex: position)
        }
    }
}
