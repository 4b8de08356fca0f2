import Foundation

/// Reads `xcmapping.xml`, the file Xcode keeps a mapping model in: a Core Data XML store of
/// Xcode's own objects, `<object type="XDDEVMAPPINGMODEL|XDDEVENTITYMAPPING|XDDEVATTRIBUTEMAPPING|XDDEVRELATIONSHIPMAPPING" id="…">`,
/// each holding `<attribute name="…" type="…">value</attribute>` and
/// `<relationship name="…" idrefs="id id …">` elements (`docs/MODEL.md`, "Mapping models").
extension XcodeMappingModel {
    /// Reads the mapping model at `url`: an `.xcmappingmodel` folder, or its `xcmapping.xml`.
    ///
    /// - Throws: ``ModelError/invalidFile(path:reason:)`` when the file cannot be read, is not
    ///   well-formed XML or holds no mapping model.
    public init(contentsOf url: URL) throws(ModelError) {
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder)
        let file = exists && isFolder.boolValue ? url.appendingPathComponent("xcmapping.xml") : url
        let name = file.lastPathComponent == "xcmapping.xml" ? file.deletingLastPathComponent().lastPathComponent : file.lastPathComponent
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw .invalidFile(path: file.path, reason: "cannot be read as a mapping model's xcmapping.xml (\(error.localizedDescription))")
        }
        self = try Self.read(data, name: name, file: file.path)
    }

    /// Reads the text of an `xcmapping.xml`; `name` is what messages call the mapping model.
    public static func read(_ data: Data, name: String, file: String) throws(ModelError) -> XcodeMappingModel {
        let root: XMLTreeElement
        do {
            root = try XMLTree.parse(try withoutDocumentType(data))
        } catch {
            throw .invalidFile(path: file, reason: "not well-formed XML (line \(error.line), column \(error.column)): \(error.reason)")
        }
        let objects = root.children(named: "object").map(StoredObject.init)
        let byID = Dictionary(objects.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        guard let model = objects.first(where: { $0.type == "XDDEVMAPPINGMODEL" }) else {
            throw .invalidFile(path: file, reason: "holds no XDDEVMAPPINGMODEL object: not an Xcode mapping model")
        }
        var entityObjects = model.references("entitymappings").compactMap { byID[$0] }
        if entityObjects.isEmpty { entityObjects = objects.filter { $0.type == "XDDEVENTITYMAPPING" } }
        entityObjects.sort { (Int($0.string("mappingnumber") ?? "") ?? 0) < (Int($1.string("mappingnumber") ?? "") ?? 0) }
        let entities = entityObjects.map { entity(from: $0, objects: objects, byID: byID) }
        return XcodeMappingModel(name: name, sourceModelPath: model.string("sourcemodelpath"),
                                 destinationModelPath: model.string("destinationmodelpath"), entityMappings: entities)
    }

    /// `data` with its `<!DOCTYPE database SYSTEM "…CoreData.dtd">` blanked out (Xcode writes
    /// one; the XML reader takes no document type, and none is loaded). A declaration with an
    /// internal subset (`[…]`) is refused: Xcode writes none.
    static func withoutDocumentType(_ data: Data) throws(XMLTreeError) -> Data {
        var bytes = [UInt8](data)
        let marker = Array("<!DOCTYPE".utf8)
        guard let start = bytes.indices.first(where: { bytes[$0...].starts(with: marker) }) else { return data }
        guard let end = bytes[start...].firstIndex(of: UInt8(ascii: ">")) else { return data }
        let line = bytes[..<start].filter { $0 == UInt8(ascii: "\n") }.count + 1
        if bytes[start...end].contains(UInt8(ascii: "[")) {
            throw XMLTreeError(line: line, column: 1, reason: "a document type declaration with an internal subset; Xcode writes none")
        }
        for index in start...end where bytes[index] != UInt8(ascii: "\n") { bytes[index] = UInt8(ascii: " ") }
        return Data(bytes)
    }

    private static func entity(from object: StoredObject, objects: [StoredObject], byID: [String: StoredObject]) -> Entity {
        let source = object.string("sourcename")
        let destination = object.string("destinationname")
        let name = object.string("name") ?? (source.flatMap { s in destination.map { "\(s)To\($0)" } } ?? destination ?? source ?? "")
        func properties(_ relationship: String, type: String) -> [Property] {
            var listed = object.references(relationship).compactMap { byID[$0] }
            if listed.isEmpty {
                listed = objects.filter { $0.type == type && $0.references("entitymapping").contains(object.id) }
            }
            return listed.compactMap(property(from:))
        }
        return Entity(name: name, sourceName: source, destinationName: destination, typeName: object.string("mappingtypename"),
                      policyClassName: object.string("migrationpolicyclassname"), customSource: customSource(of: object),
                      attributes: properties("attributemappings", type: "XDDEVATTRIBUTEMAPPING"),
                      relationships: properties("relationshipmappings", type: "XDDEVRELATIONSHIPMAPPING"))
    }

    /// The source expression or filter when it is not the default fetch of every source object.
    private static func customSource(of object: StoredObject) -> String? {
        if let filter = object.string("sourcefilterpredicatestring"), filter.uppercased() != "TRUEPREDICATE" {
            return "the filter predicate \(filter)"
        }
        if object.flag("autogeneratesourceexpression") { return nil }
        if let expression = object.string("sourceexpressionasstring") {
            let isDefault = expression.contains("fetchRequestForSourceEntityNamed:predicateString:") && expression.contains("\"TRUEPREDICATE\"")
            return isDefault ? nil : "the source expression \(expression)"
        }
        if object.string("sourceexpressiondata") != nil, !object.flag("autogenerateexpression") {
            return "an archived source expression (sourceexpressiondata)"
        }
        return nil
    }

    private static func property(from object: StoredObject) -> Property? {
        guard let name = object.string("name") else { return nil }
        let value: Property.Value
        if let text = object.string("valueexpressionasstring") {
            value = .expression(text)
        } else if object.string("valueexpressiondata") != nil, !object.flag("autogenerateexpression") {
            value = .archivedExpression
        } else if let keyPath = object.string("sourcekeypath") ?? object.string("sourcemappingname").map({ _ in name }) {
            value = .relationshipKeyPath(keyPath, mappingName: object.string("sourcemappingname"))
        } else if object.flag("autogenerateexpression") {
            value = .generated
        } else {
            value = .none
        }
        return Property(name: name, value: value, line: object.line)
    }

    /// One `<object>` of the file: its type (upper case), attributes and relationships by lower-case name.
    private struct StoredObject {
        let id: String
        let type: String
        let line: Int
        let attributes: [String: String]
        let relationships: [String: [String]]

        init(_ element: XMLTreeElement) {
            id = element.attributes["id"] ?? ""
            type = (element.attributes["type"] ?? "").uppercased()
            line = element.line
            var attributes: [String: String] = [:]
            for child in element.children(named: "attribute") {
                guard let name = child.attributes["name"] else { continue }
                attributes[name.lowercased()] = child.text.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            self.attributes = attributes
            var relationships: [String: [String]] = [:]
            for child in element.children(named: "relationship") {
                guard let name = child.attributes["name"] else { continue }
                relationships[name.lowercased()] = (child.attributes["idrefs"] ?? "").split(separator: " ").map(String.init)
            }
            self.relationships = relationships
        }

        /// A non-empty attribute value.
        func string(_ name: String) -> String? { attributes[name].flatMap { $0.isEmpty ? nil : $0 } }
        /// A Boolean attribute (`1`, `YES` or `true`).
        func flag(_ name: String) -> Bool { ["1", "YES", "TRUE"].contains(attributes[name]?.uppercased() ?? "") }
        /// The identifiers a relationship holds.
        func references(_ name: String) -> [String] { relationships[name] ?? [] }
    }
}
