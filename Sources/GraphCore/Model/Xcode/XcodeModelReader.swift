import Foundation

/// Reads the `contents` file of an Xcode model version (`.xcdatamodel`) into an
/// ``ObjectModel``, noting with its line everything it carries differently or leaves out.
/// `docs/MODEL.md` ("Xcode models") has the whole mapping.
struct XcodeModelReader {
    /// The file's name in notes.
    let file: String
    /// Warnings and errors so far.
    var notes: [ModelImportNote] = []

    /// An entity as read, before the model resolves it.
    struct Draft {
        var name: String
        var line: Int
        var parent: String?
        var isAbstract = false
        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        /// The line of each relationship, by name.
        var relationshipLines: [String: Int] = [:]
        var uniquenessConstraints: [[String]] = []
        var constraintLines: [Int] = []
        var fetchIndexes: [FetchIndexDescription] = []
        var indexLines: [Int] = []
        var versionHashModifier: String?
        var renamingIdentifier: String?
        var userInfo: [String: String] = [:]
    }

    /// Reads the `contents` file at `url`; `name` names it in notes.
    static func read(contentsOf url: URL, named name: String) throws(ModelError) -> ModelImport {
        let data = try ObjectModel.readModelFile(url)
        return try read(data, file: name)
    }

    /// Reads the bytes of a `contents` file; `file` names it in notes and errors.
    static func read(_ data: Data, file: String) throws(ModelError) -> ModelImport {
        let root: XMLTreeElement
        do {
            root = try XMLTree.parse(data)
        } catch {
            throw .unusableXcodeModel(path: file, errors: [
                ModelImportNote(.error, file: file, line: error.line, subject: nil,
                                message: "not well-formed XML (column \(error.column)): \(error.reason)"),
            ])
        }
        var reader = XcodeModelReader(file: file)
        return try reader.model(from: root)
    }

    // MARK: - Notes

    mutating func warn(_ line: Int, _ subject: String?, _ message: String) {
        notes.append(ModelImportNote(.warning, file: file, line: line, subject: subject, message: message))
    }

    mutating func error(_ line: Int, _ subject: String?, _ message: String) {
        notes.append(ModelImportNote(.error, file: file, line: line, subject: subject, message: message))
    }

    /// Warns about each XML attribute of `element` that is neither read nor known to be
    /// irrelevant to the data.
    mutating func checkAttributes(of element: XMLTreeElement, subject: String?, known: Set<String>) {
        for name in element.attributes.keys.sorted() where !known.contains(name) {
            warn(element.line, subject, "XML attribute \(name)=\"\(element.attributes[name] ?? "")\" of <\(element.name)> is not known to the importer; left out")
        }
    }

    /// A `YES`/`NO` XML attribute (also `1`/`0`, `true`/`false`); nil when absent.
    mutating func flag(_ element: XMLTreeElement, _ name: String, subject: String?) -> Bool? {
        guard let text = element.attributes[name] else { return nil }
        if let value = Self.boolean(text) { return value }
        error(element.line, subject, "\(name)=\"\(text)\" is not YES or NO")
        return nil
    }

    /// The renaming identifier of an entity, attribute or relationship: Xcode's "Renaming ID"
    /// field, which it writes as `elementID` (the model compiler makes it the element's
    /// `renamingIdentifier`); a `renamingIdentifier` XML attribute is read too and wins, with a
    /// warning, when both are present and differ. Empty means none.
    mutating func renamingIdentifier(of element: XMLTreeElement, subject: String?) -> String? {
        let explicit = element.attributes["renamingIdentifier"].flatMap { $0.isEmpty ? nil : $0 }
        let elementID = element.attributes["elementID"].flatMap { $0.isEmpty ? nil : $0 }
        if let explicit, let elementID, explicit != elementID {
            warn(element.line, subject, "renamingIdentifier=\"\(explicit)\" and elementID=\"\(elementID)\" differ; "
                 + "the renamingIdentifier is used")
        }
        return explicit ?? elementID
    }

    static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "yes", "1", "true": return true
        case "no", "0", "false": return false
        default: return nil
        }
    }

    // MARK: - The model

    /// The model `root` (the `<model>` element) describes, or the errors that make it unusable.
    mutating func model(from root: XMLTreeElement) throws(ModelError) -> ModelImport {
        guard root.name == "model" else {
            throw .unusableXcodeModel(path: file, errors: [
                ModelImportNote(.error, file: file, line: root.line, subject: nil,
                                message: "the root element is <\(root.name)>, not <model>: not the contents file of an Xcode model"),
            ])
        }
        checkAttributes(of: root, subject: nil, known: [
            "type", "documentVersion", "lastSavedToolsVersion", "systemVersion", "minimumToolsVersion",
            "sourceLanguage", "userDefinedModelVersionIdentifier", "iOSVersion", "macOSVersion", "usedWithSwiftData",
            "usedWithCloudKit",
        ])
        var drafts: [Draft] = []
        var seen: [String: Int] = [:]
        var userInfo: [String: String] = [:]
        var configurationElements: [XMLTreeElement] = []
        var fetchRequestElements: [XMLTreeElement] = []
        for child in root.children {
            switch child.name {
            case "entity":
                guard let draft = entity(from: child) else { continue }
                if let first = seen[draft.name] {
                    error(child.line, draft.name, "entity '\(draft.name)' is defined twice (first on line \(first))")
                    continue
                }
                seen[draft.name] = child.line
                drafts.append(draft)
            case "configuration": configurationElements.append(child)
            case "fetchRequest": fetchRequestElements.append(child)
            case "userInfo": userInfo = entries(of: child, subject: "model")
            case "elements": break  // the diagram's layout
            case "composite":
                error(child.line, child.attributes["name"], "composite attribute types are not supported")
            default:
                warn(child.line, nil, "element <\(child.name)> is not known to the importer; left out")
            }
        }
        resolveReferences(in: &drafts)
        let configurations = self.configurations(from: configurationElements, entities: Set(seen.keys))
        let templates = self.templates(from: fetchRequestElements, entities: Set(seen.keys))
        let errors = notes.filter { $0.severity == .error }
        guard errors.isEmpty else { throw .unusableXcodeModel(path: file, errors: errors) }
        let entities = drafts.map { draft in
            EntityDescription(draft.name, parent: draft.parent, isAbstract: draft.isAbstract, attributes: draft.attributes,
                              relationships: draft.relationships, renamingIdentifier: draft.renamingIdentifier,
                              uniquenessConstraints: draft.uniquenessConstraints, fetchIndexes: draft.fetchIndexes,
                              versionHashModifier: draft.versionHashModifier, userInfo: draft.userInfo)
        }
        do {
            let model = try ObjectModel(entities: entities, configurations: configurations,
                                        fetchRequestTemplates: templates, userInfo: userInfo)
            return ModelImport(model: model, notes: notes)
        } catch {
            let line = error.entityName.flatMap { seen[$0] } ?? root.line
            throw .unusableXcodeModel(path: file, errors: [
                ModelImportNote(.error, file: file, line: line, subject: error.entityName, message: error.description),
            ])
        }
    }

    /// The key-value pairs of a `<userInfo>` element.
    mutating func entries(of element: XMLTreeElement, subject: String) -> [String: String] {
        var result: [String: String] = [:]
        for entry in element.children {
            guard entry.name == "entry", let key = entry.attributes["key"] else {
                warn(entry.line, subject, "<\(entry.name)> in <userInfo> is not an <entry> with a key; left out")
                continue
            }
            result[key] = entry.attributes["value"] ?? ""
        }
        return result
    }

    /// Configuration name → member entity names; a member the model lacks is left out with a warning.
    mutating func configurations(from elements: [XMLTreeElement], entities: Set<String>) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for element in elements {
            guard let name = element.attributes["name"], !name.isEmpty else {
                warn(element.line, nil, "a <configuration> without a name; left out")
                continue
            }
            checkAttributes(of: element, subject: "configuration \(name)", known: ["name", "usedWithCloudKit"])
            var members: [String] = []
            for member in element.children {
                guard member.name == "memberEntity", let entity = member.attributes["name"] else {
                    warn(member.line, "configuration \(name)", "<\(member.name)> is not a <memberEntity> with a name; left out")
                    continue
                }
                guard entities.contains(entity) else {
                    warn(member.line, "configuration \(name)", "member entity '\(entity)' is not in the model; left out")
                    continue
                }
                members.append(entity)
            }
            result[name] = members
        }
        return result
    }

    /// The fetch request templates; one whose entity is missing or whose predicate does not
    /// parse is left out with a warning.
    mutating func templates(from elements: [XMLTreeElement], entities: Set<String>) -> [FetchRequestTemplate] {
        var result: [FetchRequestTemplate] = []
        var names = Set<String>()
        for element in elements {
            guard let name = element.attributes["name"], !name.isEmpty, let entity = element.attributes["entity"] else {
                warn(element.line, nil, "a <fetchRequest> without a name or an entity; left out")
                continue
            }
            let subject = "fetch request \(name)"
            checkAttributes(of: element, subject: subject, known: [
                "name", "entity", "predicateString", "fetchLimit", "fetchBatchSize", "includesPendingChanges",
                "returnObjectsAsFaults", "includeSubentities", "includePropertyValues",
            ])
            guard entities.contains(entity) else {
                warn(element.line, subject, "entity '\(entity)' is not in the model; template left out")
                continue
            }
            guard names.insert(name).inserted else {
                warn(element.line, subject, "a second fetch request of this name; left out")
                continue
            }
            if element.attributes["includeSubentities"].flatMap(Self.boolean) == false {
                warn(element.line, subject, "includeSubentities=NO is not kept: GraphCore's fetches include sub-entities")
            }
            var limit: Int?
            if let text = element.attributes["fetchLimit"] {
                limit = Int(text).flatMap { $0 > 0 ? $0 : nil }
                if limit == nil && text != "0" { warn(element.line, subject, "fetchLimit=\"\(text)\" is not a whole number; left out") }
            }
            do {
                result.append(try FetchRequestTemplate(name: name, entityName: entity,
                                                       predicateFormat: element.attributes["predicateString"], fetchLimit: limit))
            } catch {
                warn(element.line, subject, "its predicate \"\(element.attributes["predicateString"] ?? "")\" does not parse (\(error)); template left out")
            }
        }
        return result
    }
}

extension ModelError {
    /// The entity the error is about, when it names one.
    var entityName: String? {
        switch self {
        case .emptyName(let entity): return entity.isEmpty ? nil : entity
        case .duplicateEntity(let name), .entityInAnotherModel(let name): return name
        case .duplicateProperty(let entity, _), .unknownParent(let entity, _), .unknownType(let entity, _, _),
            .unknownDestination(let entity, _, _), .unknownInverse(let entity, _, _, _), .inverseMismatch(let entity, _, _, _),
            .invalidDefault(let entity, _, _, _), .invalidCount(let entity, _, _), .invalidRule(let entity, _, _),
            .invalidIndex(let entity, _):
            return entity
        case .parentCycle(let names): return names.first
        case .invalidFile, .unknownEntity, .unusableXcodeModel: return nil
        }
    }
}
