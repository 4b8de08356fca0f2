import GraphCore
import JSONAtomicStore

/// The checks of an import that need every object: a reference used twice, a relationship
/// to an object the import does not hold, or whose ID names another entity than the
/// object's. Each problem names the line of the object that has it. (Values, inverses and
/// uniqueness constraints are checked again when the new store file is loaded, before it
/// replaces the store.)
enum ImportReferences {
    /// Reports each problem through `note(line, reason)`.
    static func check(_ objects: [ImportedObject], note: (Int, String) -> Void) {
        var byReference: [Int64: Int] = [:]
        byReference.reserveCapacity(objects.count)
        for (index, object) in objects.enumerated() {
            if let other = byReference[object.reference] {
                let first = objects[other]
                note(object.line, "reference \(object.reference) is used twice (also by the \(first.entity.name) on line \(first.line))")
            } else {
                byReference[object.reference] = index
            }
        }
        for object in objects {
            for (index, property) in object.entity.properties.enumerated() {
                guard case .relationship = property, index < object.values.count else { continue }
                func check(_ id: ObjectID) {
                    guard case .int(let reference) = id.referenceObject else { return }
                    guard let target = byReference[reference] else {
                        note(object.line, "property \"\(property.name)\": no object of the import has the ID \(id.uriRepresentation)")
                        return
                    }
                    let found = objects[target]
                    if found.entity !== id.entity {
                        note(object.line, "property \"\(property.name)\": \(id.uriRepresentation) names a \(id.entityName), "
                             + "but reference \(reference) is a \(found.entity.name) (line \(found.line))")
                    }
                }
                switch object.values[index] {
                case .object(let id): check(id)
                case .objects(let ids): ids.forEach(check)
                default: break
                }
            }
        }
    }
}
