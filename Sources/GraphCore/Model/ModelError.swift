/// Why a model could not be built or loaded. Every case names the entity and, where there
/// is one, the property at fault.
public enum ModelError: Error, Equatable, Sendable, CustomStringConvertible {
    case emptyName(entity: String)
    case duplicateEntity(String)
    case duplicateProperty(entity: String, property: String)
    case unknownParent(entity: String, parent: String)
    case parentCycle([String])
    case unknownType(entity: String, property: String, type: String)
    case unknownDestination(entity: String, relationship: String, destination: String)
    case unknownInverse(entity: String, relationship: String, inverse: String, destination: String)
    case inverseMismatch(entity: String, relationship: String, inverse: String, pointsTo: String)
    case invalidDefault(entity: String, attribute: String, type: AttributeType, reason: String)
    case invalidCount(entity: String, relationship: String, reason: String)
    case entityInAnotherModel(String)
    /// The model file is not JSON, or not shaped as `docs/MODEL.md` describes.
    case invalidFile(path: String, reason: String)

    public var description: String {
        switch self {
        case .emptyName(let entity):
            return entity.isEmpty ? "an entity has an empty name" : "entity '\(entity)' has a property with an empty name"
        case .duplicateEntity(let name):
            return "entity '\(name)' is defined twice"
        case .duplicateProperty(let entity, let property):
            return "entity '\(entity)' defines property '\(property)' twice (or again after its parent)"
        case .unknownParent(let entity, let parent):
            return "entity '\(entity)' names parent '\(parent)', which the model does not define"
        case .parentCycle(let names):
            return "entities \(names.joined(separator: " -> ")) form a cycle of parents"
        case .unknownType(let entity, let property, let type):
            return "\(entity).\(property) has unknown type '\(type)' (known: "
                + AttributeType.allCases.map(\.rawValue).joined(separator: ", ") + ")"
        case .unknownDestination(let entity, let relationship, let destination):
            return "\(entity).\(relationship) leads to entity '\(destination)', which the model does not define"
        case .unknownInverse(let entity, let relationship, let inverse, let destination):
            return "\(entity).\(relationship) names inverse '\(inverse)', which \(destination) does not have"
        case .inverseMismatch(let entity, let relationship, let inverse, let pointsTo):
            return "\(entity).\(relationship) names inverse '\(inverse)', but that relationship points back to \(pointsTo)"
        case .invalidDefault(let entity, let attribute, let type, let reason):
            return "\(entity).\(attribute) has a default value that is not a \(type): \(reason)"
        case .invalidCount(let entity, let relationship, let reason):
            return "\(entity).\(relationship): \(reason)"
        case .entityInAnotherModel(let name):
            return "entity '\(name)' already belongs to another model; describe it again for a new model"
        case .invalidFile(let path, let reason):
            return "model file \(path): \(reason)"
        }
    }
}
