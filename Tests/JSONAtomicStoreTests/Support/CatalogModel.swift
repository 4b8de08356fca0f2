import Foundation
import GraphCore
@testable import JSONAtomicStore

/// The model the JSON store tests share: `Item` has every attribute type (optional and not,
/// with and without defaults) and every kind of relationship: to-one/to-one (`twin`, its own
/// inverse), to-one/to-many (`owner` / `Owner.items`), ordered to-many (`parts` /
/// `Part.item`), many-to-many (`tags` / `Tag.items`), a to-one to an abstract entity with
/// sub-entities (`pet` → `Animal`, `Dog`, `Cat`) and one without an inverse (`favorite`).
enum CatalogModel {
    static func make() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Item", attributes: [
                AttributeDescription("name", .string),
                AttributeDescription("count", .int64, defaultValue: 7),
                AttributeDescription("small", .int16, isOptional: true),
                AttributeDescription("medium", .int32, isOptional: true),
                AttributeDescription("large", .int64, isOptional: true),
                AttributeDescription("ratio", .double, isOptional: true),
                AttributeDescription("weight", .float, isOptional: true),
                AttributeDescription("price", .decimal, isOptional: true),
                AttributeDescription("note", .string, isOptional: true),
                AttributeDescription("active", .bool, isOptional: true),
                AttributeDescription("added", .date, isOptional: true),
                AttributeDescription("blob", .binary, isOptional: true),
                AttributeDescription("uid", .uuid, isOptional: true),
                AttributeDescription("link", .uri, isOptional: true),
                AttributeDescription("score", .double, defaultValue: 1.5),
            ], relationships: [
                RelationshipDescription("owner", destination: "Owner", inverse: "items"),
                RelationshipDescription("twin", destination: "Item", inverse: "twin"),
                RelationshipDescription("parts", destination: "Part", inverse: "item", toMany: true, ordered: true),
                RelationshipDescription("tags", destination: "Tag", inverse: "items", toMany: true),
                RelationshipDescription("pet", destination: "Animal", inverse: "keepers"),
                RelationshipDescription("favorite", destination: "Item", inverse: nil),
            ]),
            EntityDescription("Owner", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("items", destination: "Item", inverse: "owner", toMany: true),
            ]),
            EntityDescription("Part", attributes: [AttributeDescription("title", .string)], relationships: [
                RelationshipDescription("item", destination: "Item", inverse: "parts"),
            ]),
            EntityDescription("Tag", attributes: [AttributeDescription("label", .string)], relationships: [
                RelationshipDescription("items", destination: "Item", inverse: "tags", toMany: true),
            ]),
            EntityDescription("Animal", isAbstract: true, attributes: [AttributeDescription("name", .string)],
                              relationships: [
                                  RelationshipDescription("keepers", destination: "Item", inverse: "pet", toMany: true),
                              ]),
            EntityDescription("Dog", parent: "Animal", attributes: [AttributeDescription("barks", .bool, defaultValue: true)]),
            EntityDescription("Cat", parent: "Animal", attributes: [AttributeDescription("lives", .int16, defaultValue: 9)]),
        ])
    }
}

/// A temporary directory for one test, removed when the value is deallocated.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("json-store-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// One open JSON store with its coordinator.
struct OpenStore {
    let coordinator: StoreCoordinator
    let store: JSONAtomicStore

    init(_ url: URL, model: ObjectModel, readOnly: Bool = false, values: [String: String] = [:]) throws {
        JSONAtomicStore.register()
        coordinator = StoreCoordinator(model: model)
        let added = try coordinator.addPersistentStore(type: "JSON", at: url, options: StoreOptions(isReadOnly: readOnly, values: values))
        guard let store = added as? JSONAtomicStore else { throw GraphError.store("not a JSON store") }
        self.store = store
    }

    func context() -> ObjectContext { ObjectContext(coordinator: coordinator) }

    /// Removes the store from its coordinator, releasing the lock.
    func close() { coordinator.remove(store) }

    /// Every node of the store in a canonical, comparable form:
    /// "Entity ref v<version>" → one text per property, relationships as references.
    func dump() -> [String: [String]] {
        var result: [String: [String]] = [:]
        for node in store.cacheNodes() {
            result["\(node.objectID.entityName) \(node.objectID.referenceObject) v\(node.version)"] = node.values.map(Self.text)
        }
        return result
    }

    static func text(_ value: Value) -> String {
        switch value {
        case .double(let d): return "double \(d.bitPattern)"
        case .object(let id): return "-> \(id.referenceObject)"
        case .objects(let ids): return "->> " + ids.map(\.referenceObject.description).joined(separator: ",")
        case .binary(let data): return "binary \(data.base64EncodedString())"
        case .date(let date): return "date \(date.timeIntervalSince1970.bitPattern)"
        default: return "\(value.kindName) \(value)"
        }
    }
}

/// The bytes of a file as text, for messages and comparisons.
func fileText(_ url: URL) throws -> String {
    String(decoding: try Data(contentsOf: url), as: UTF8.self)
}

/// The journal beside a store file: `<store file>-journal`.
func journalURL(_ url: URL) -> URL {
    URL(fileURLWithPath: url.path + "-journal")
}
