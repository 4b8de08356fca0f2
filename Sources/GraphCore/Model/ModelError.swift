/// Why a model could not be built or loaded. Every case names the entity and, where there
/// is one, the property at fault.
public enum ModelError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An entity (the associated name is empty) or a property of the named entity has an empty name.
    case emptyName(entity: String)
    /// Two entities have this name.
    case duplicateEntity(String)
    /// The entity declares the property twice, or again after its parent declared it.
    case duplicateProperty(entity: String, property: String)
    /// The entity names a parent the model does not define.
    case unknownParent(entity: String, parent: String)
    /// These entities are each other's ancestors.
    case parentCycle([String])
    /// A model file gives an attribute a type that is not an ``AttributeType``.
    case unknownType(entity: String, property: String, type: String)
    /// A relationship leads to an entity the model does not define.
    case unknownDestination(entity: String, relationship: String, destination: String)
    /// A relationship names an inverse its destination does not have.
    case unknownInverse(entity: String, relationship: String, inverse: String, destination: String)
    /// A relationship's inverse does not name it back, or leads elsewhere (`pointsTo`).
    case inverseMismatch(entity: String, relationship: String, inverse: String, pointsTo: String)
    /// An attribute's default value does not fit its type (or is nil for a required attribute).
    case invalidDefault(entity: String, attribute: String, type: AttributeType, reason: String)
    /// A relationship's `minCount`/`maxCount` make no sense (negative, crossed, on a to-one).
    case invalidCount(entity: String, relationship: String, reason: String)
    /// The ``EntityDescription`` was already used to build a model; an entity belongs to one model.
    case entityInAnotherModel(String)
    /// The model file is not JSON, or not shaped as `docs/MODEL.md` describes.
    case invalidFile(path: String, reason: String)
    /// An attribute's minimum, maximum or pattern makes no sense for its type (or does not compile).
    case invalidRule(entity: String, attribute: String, reason: String)
    /// A uniqueness constraint or fetch index of the entity names a property it does not have, or is empty.
    case invalidIndex(entity: String, reason: String)
    /// A configuration or fetch request template names an entity the model does not define
    /// (`owner` names the configuration or template).
    case unknownEntity(owner: String, entity: String)
    /// An Xcode model (`.xcdatamodel` or `.xcdatamodeld`) cannot be used: each note is an
    /// error naming the file, the line and what is wrong.
    case unusableXcodeModel(path: String, errors: [ModelImportNote])

    /// What is wrong, naming the entity and property (or the place in the model file).
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
        case .invalidRule(let entity, let attribute, let reason):
            return "\(entity).\(attribute): \(reason)"
        case .invalidIndex(let entity, let reason):
            return "entity '\(entity)': \(reason)"
        case .unknownEntity(let owner, let entity):
            return "\(owner) names entity '\(entity)', which the model does not define"
        case .unusableXcodeModel(let path, let errors):
            return "Xcode model \(path) cannot be used:\n" + errors.map { "  \($0)" }.joined(separator: "\n")
        }
    }
}
