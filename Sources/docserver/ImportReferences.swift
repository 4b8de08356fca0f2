import GraphCore
import JSONAtomicStore

/// The checks of an import that need every object: a reference used twice, a relationship
/// to an object the import does not hold, or whose ID names another entity than the
/// object's. Each problem names the line of the object that has it. (Required values,
/// inverses and uniqueness constraints are checked next, with the loader's rules, by
/// `StoreImportWriter` before it writes the new store file.)
enum ImportReferences {
    /// Reports each problem through `note(line, reason)`.
    static func check(_ objects: [ImportedObject], note: (Int, String) -> Void) {
        var table = ReferenceTable(capacityFor: objects)
        for (index, object) in objects.enumerated() {
            if let other = table.index(of: object.reference) {
                let first = objects[other]
                note(object.line, "reference \(object.reference) is used twice (also by the \(first.entity.name) on line \(first.line))")
            } else {
                table.set(object.reference, index)
            }
        }
        for object in objects {
            for (index, property) in object.entity.properties.enumerated() {
                guard case .relationship = property, index < object.values.count else { continue }
                func check(_ id: ObjectID) {
                    guard case .int(let reference) = id.referenceObject else { return }
                    guard let target = table.index(of: reference) else {
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

    /// The index of the object that has each reference: an array indexed by reference when the
    /// references are dense (an export's are: 1 to about the number of objects), else a dictionary.
    struct ReferenceTable {
        private var dense: [Int32] = []
        private var sparse: [Int64: Int] = [:]
        private let isDense: Bool

        init(capacityFor objects: [ImportedObject]) {
            let largest = objects.reduce(Int64(0)) { max($0, $1.reference) }
            isDense = objects.count < Int(Int32.max) && largest <= Int64(objects.count) * 4 + 1_024
            if isDense {
                dense = Array(repeating: -1, count: Int(largest) + 1)
            } else {
                sparse.reserveCapacity(objects.count)
            }
        }

        func index(of reference: Int64) -> Int? {
            if isDense {
                guard reference >= 0, reference < Int64(dense.count) else { return nil }
                let found = dense[Int(reference)]
                return found < 0 ? nil : Int(found)
            }
            return sparse[reference]
        }

        mutating func set(_ reference: Int64, _ index: Int) {
            if isDense { dense[Int(reference)] = Int32(index) } else { sparse[reference] = index }
        }
    }
}
