import GraphCore
import JSONCore

/// The form of an object's previous values in a history row (``CommitHistory``'s `previous`
/// column, one text per object): what the object held before the commit, as JSON,
/// `[version, {"property": value, …}]`, with only the properties the commit changed (every
/// property, for a deleted object):
///
/// - an attribute's value as the store file and the protocol write it (`ValueForm`);
/// - a to-one relationship's target as `["Entity", reference]`, or `null`;
/// - an unordered to-many relationship's change as `{"added": [targets], "removed": [targets]}`,
///   each target as a to-one's (for a deleted object: every target it had, as removed);
/// - an ordered one's change as `{"at": p, "replacing": n, "was": [targets]}`: the targets before
///   are those after with the `n` from position `p` replaced by `was` (the part outside their
///   common beginning and end; a target appended: `{"at": 12, "replacing": 1, "was": []}`).
///
/// `[3, {"title": "Old title"}]`: an object at version 3 whose `title` the commit changed.
/// A reader takes what its model names and skips the rest (a property it does not know).
enum PreviousValuesForm {
    /// The text of `before`'s values that differ from `after`'s (all of them when `after` is nil:
    /// a deleted object), written with `out`; nil when a value has no form here (a temporary
    /// ID, a value of another type than its property's), which leaves the object's previous
    /// values unrecorded rather than wrong.
    static func text(before: ObjectSnapshot, after: ObjectSnapshot?, out: JSONGenerator) -> String? {
        let properties = before.objectID.entity.properties
        guard before.values.count == properties.count, after.map({ $0.values.count == properties.count }) ?? true else { return nil }
        out.reset(separator: nil)
        do {
            try out.openArray()
            try out.integer(before.version)
            try out.openObject()
            for (index, property) in properties.enumerated() {
                let old = before.values[index], new = after?.values[index]
                if let new, new == old { continue }
                switch property {
                case .attribute(let attribute):
                    try out.string(attribute.name)
                    try ValueForm.write(old, as: attribute.type, to: out)
                case .relationship(let relationship) where relationship.isToMany && relationship.isOrdered:
                    let splice = PreviousValues.Splice(before: Self.targets(old), after: new.map(Self.targets) ?? [])
                    try out.string(relationship.name)
                    try out.openObject()
                    try out.string("at")
                    try out.integer(Int64(splice.at))
                    try out.string("replacing")
                    try out.integer(Int64(splice.replacing))
                    try out.string("was")
                    try writeTargets(splice.was, to: out)
                    try out.closeObject()
                case .relationship(let relationship) where relationship.isToMany:
                    let was = Self.targets(old), now = new.map(Self.targets) ?? []
                    let wasSet = Set(was), nowSet = Set(now)
                    try out.string(relationship.name)
                    try out.openObject()
                    try out.string("added")
                    try writeTargets(now.filter { !wasSet.contains($0) }, to: out)
                    try out.string("removed")
                    try writeTargets(was.filter { !nowSet.contains($0) }, to: out)
                    try out.closeObject()
                case .relationship(let relationship):
                    try out.string(relationship.name)
                    guard case .object(let target) = old else {
                        try out.null()
                        continue
                    }
                    try writeTarget(target, to: out)
                }
            }
            try out.closeObject()
            try out.closeArray()
            var text = ""
            try out.flush { text = String(decoding: $0, as: UTF8.self) }
            return text
        } catch {
            try? out.flush { _ in }
            return nil
        }
    }

    /// The previous values `text` holds for an object of `entity`; nil when it is not of this
    /// form (the object's previous values are then not known). `objectID` makes a target's ID
    /// from its entity's name and reference (nil for an entity the model does not have).
    static func values(_ text: String, of entity: EntityDescription,
                       objectID: (String, Int64) -> ObjectID?) -> PreviousValues? {
        var text = text
        let parsed = text.withUTF8 { bytes in try? JSONValue.parse(UnsafeRawBufferPointer(bytes), maximumDepth: 8) }
        guard case .array(let elements)? = parsed, elements.count == 2, case .number(let versionText) = elements[0],
              let version = Int64(versionText), case .object(let members) = elements[1] else { return nil }
        var previous = PreviousValues(version: version)
        for (name, json) in members {
            guard let index = entity.index(ofProperty: name) else { continue }
            switch entity.properties[index] {
            case .attribute(let attribute):
                guard let value = ValueForm.value(json, as: attribute.type) else { return nil }
                previous.values[index] = value
            case .relationship(let relationship) where relationship.isToMany && relationship.isOrdered:
                guard case .number(let atText)? = json["at"], let at = Int(atText), at >= 0,
                      case .number(let replacingText)? = json["replacing"], let replacing = Int(replacingText), replacing >= 0,
                      let was = targets(json["was"], objectID: objectID) else { return nil }
                previous.splices[index] = PreviousValues.Splice(at: at, replacing: replacing, was: was)
            case .relationship(let relationship) where relationship.isToMany:
                guard let added = targets(json["added"], objectID: objectID),
                      let removed = targets(json["removed"], objectID: objectID) else { return nil }
                previous.targets[index] = PreviousValues.TargetChange(added: added, removed: removed)
            case .relationship:
                if json == .null {
                    previous.values[index] = .null
                } else {
                    guard let target = target(json, objectID: objectID) else { return nil }
                    previous.values[index] = .object(target)
                }
            }
        }
        return previous
    }

    private static func targets(_ value: Value) -> [ObjectID] {
        if case .objects(let targets) = value { return targets }
        return []
    }

    private static func writeTargets(_ targets: [ObjectID], to out: JSONGenerator) throws {
        try out.openArray()
        for target in targets { try writeTarget(target, to: out) }
        try out.closeArray()
    }

    private static func writeTarget(_ target: ObjectID, to out: JSONGenerator) throws {
        guard case .int(let reference) = target.referenceObject, !target.isTemporary else { throw Unrecordable() }
        try out.openArray()
        try out.string(target.entityName)
        try out.integer(reference)
        try out.closeArray()
    }

    /// A value this form cannot write: the object's previous values are left out.
    private struct Unrecordable: Error {}

    private static func targets(_ json: JSONValue?, objectID: (String, Int64) -> ObjectID?) -> [ObjectID]? {
        guard case .array(let elements)? = json else { return nil }
        var found: [ObjectID] = []
        found.reserveCapacity(elements.count)
        for element in elements {
            guard let target = target(element, objectID: objectID) else { return nil }
            found.append(target)
        }
        return found
    }

    private static func target(_ json: JSONValue, objectID: (String, Int64) -> ObjectID?) -> ObjectID? {
        guard case .array(let pair) = json, pair.count == 2, case .string(let entity) = pair[0],
              case .number(let referenceText) = pair[1], let reference = Int64(referenceText) else { return nil }
        return objectID(entity, reference)
    }
}

/// Reads the previous values of a history row's objects (``PreviousValuesForm``) for one
/// store's model: IDs of the store, entities of the model.
struct PreviousValuesReader: Sendable {
    let model: ObjectModel
    let storeIdentifier: String

    /// The previous values `text` holds for an object of the entity named `entityName`; nil
    /// when the model has no such entity or the text is not of the form.
    func values(_ text: String, entity entityName: String) -> PreviousValues? {
        guard let entity = model.entity(named: entityName) else { return nil }
        return PreviousValuesForm.values(text, of: entity) { name, reference in
            model.entity(named: name).map { ObjectID(entity: $0, storeIdentifier: storeIdentifier, reference: .int(reference)) }
        }
    }
}
