/// A fetch index a store keeps for a concrete entity: the index's name and the attribute its
/// first element orders by.
struct IndexedAttribute: Sendable {
    let name: String
    let key: String
    /// The attribute's position in the entity's properties.
    let propertyIndex: Int

    /// Each binary fetch index of `entity` or an ancestor whose first element is an attribute
    /// of a covered type, one per attribute (the entity's own first).
    static func all(of entity: EntityDescription) -> [IndexedAttribute] {
        var found: [IndexedAttribute] = []
        var declaring: EntityDescription? = entity
        while let current = declaring {
            for description in current.fetchIndexes {
                guard let first = description.elements.first, first.kind == .binary,
                      case .property(let key) = first.target,
                      let position = entity.index(ofProperty: key),
                      case .attribute(let attribute) = entity.properties[position],
                      IndexKey.covers(attribute.type),
                      !found.contains(where: { $0.key == key })
                else { continue }
                found.append(IndexedAttribute(name: description.name, key: key, propertyIndex: position))
            }
            declaring = current.parent
        }
        return found
    }
}
