import Foundation
import GraphCore
import ServerTestSupport
import Testing
@testable import JSONAtomicStore

/// Random models, random lightweight changes, random stores: after a migration the store
/// passes the store's checks and every value the change keeps is kept. Seeded: a failure
/// names its seed, and `MigrationPropertyTests.run(seed:)` replays it.
@Suite("Migration: random models and changes (property test)")
struct MigrationPropertyTests {
    /// SplitMix64: small, fast, the same on every platform.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
        mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    }

    struct Attribute {
        let id: Int
        var name: String
        var type: AttributeType
        var isOptional: Bool
        var defaultValue: Value?
        var renamedFrom: String?
    }

    struct Entity {
        let id: Int
        var name: String
        var attributes: [Attribute]
        var renamedFrom: String?
    }

    /// Entities; the first two, when there are two, are linked by `items` ↔ `owner`.
    struct Spec {
        var entities: [Entity]

        func model() throws -> ObjectModel {
            try ObjectModel(entities: entities.enumerated().map { index, entity in
                var relationships: [RelationshipDescription] = []
                if entities.count > 1, index == 0 {
                    relationships.append(RelationshipDescription("items", destination: entities[1].name, inverse: "owner", toMany: true))
                } else if entities.count > 1, index == 1 {
                    relationships.append(RelationshipDescription("owner", destination: entities[0].name, inverse: "items"))
                }
                return EntityDescription(entity.name, attributes: entity.attributes.map {
                    AttributeDescription($0.name, $0.type, isOptional: $0.isOptional, defaultValue: $0.defaultValue, renamingIdentifier: $0.renamedFrom)
                }, relationships: relationships, renamingIdentifier: entity.renamedFrom)
            })
        }
    }

    static let types: [AttributeType] = [.int16, .int32, .int64, .double, .string, .bool]

    static func value(_ type: AttributeType, _ random: inout Random) -> Value {
        switch type {
        case .int16: return .int(Int64(random.int(-300...300)))
        case .int32: return .int(Int64(random.int(-70_000...70_000)))
        case .int64: return .int(Int64(random.int(-1_000_000...1_000_000)) * 1_000_000)
        case .double: return .double(Double(random.int(-1000...1000)) / 4)
        case .string: return .string("s\(random.int(0...999))")
        default: return .bool(random.chance(50))
        }
    }

    static func attribute(_ id: Int, _ random: inout Random) -> Attribute {
        let type = types[random.int(0...types.count - 1)]
        let optional = random.chance(50)
        // `Value` is nil-literal expressible: a bare `nil` in the ternary would be `.null`, not "no default".
        let defaultValue: Value? = optional && random.chance(50) ? Value?.none : value(type, &random)
        return Attribute(id: id, name: "a\(id)", type: type, isOptional: optional, defaultValue: defaultValue)
    }

    /// One random lightweight change of `spec`, in place; `next` numbers new names.
    static func change(_ spec: inout Spec, _ random: inout Random, next: inout Int) {
        let e = random.int(0...spec.entities.count - 1)
        var entity = spec.entities[e]
        let a = random.int(0...entity.attributes.count - 1)
        switch random.int(0...6) {
        case 0:  // add an attribute, optional or with a default
            next += 1
            var added = attribute(next, &random)
            if !added.isOptional, added.defaultValue == nil { added.defaultValue = value(added.type, &random) }
            entity.attributes.append(added)
        case 1 where entity.attributes.count > 1:  // remove one
            entity.attributes.remove(at: a)
        case 2:  // rename one
            next += 1
            if entity.attributes[a].renamedFrom == nil { entity.attributes[a].renamedFrom = entity.attributes[a].name }
            entity.attributes[a].name = "r\(next)"
        case 3:  // make it optional
            entity.attributes[a].isOptional = true
        case 4:  // change its default
            let attribute = entity.attributes[a]
            entity.attributes[a].defaultValue = attribute.isOptional && random.chance(30) ? Value?.none : value(attribute.type, &random)
        case 5:  // make it required, with a default for nil values
            entity.attributes[a].isOptional = false
            if entity.attributes[a].defaultValue == nil { entity.attributes[a].defaultValue = value(entity.attributes[a].type, &random) }
        default:  // rename the entity
            next += 1
            if entity.renamedFrom == nil { entity.renamedFrom = entity.name }
            entity.name = "E\(next)"
        }
        spec.entities[e] = entity
    }

    /// One case: a random model, store and change; returns a description of what went wrong, or nil.
    static func run(seed: UInt64, in directory: TemporaryDirectory) throws -> String? {
        var random = Random(state: seed)
        var next = 0
        var before = Spec(entities: (0..<random.int(1...3)).map { index in
            Entity(id: index, name: "E\(index)", attributes: (0..<random.int(1...4)).map { _ in
                next += 1
                return attribute(next, &random)
            })
        })
        next += 10
        let v1 = try before.model()
        let url = directory.file("store-\(seed).json")
        JSONAtomicStore.register()
        // Objects: every attribute set at random (nil sometimes when optional), owners at random.
        var written: [Int64: (entity: Int, values: [Int: Value])] = [:]
        var owners: [Int64: Int64] = [:]
        do {
            let coordinator = StoreCoordinator(model: v1)
            let store = try coordinator.addPersistentStore(type: JSONAtomicStore.storeType, at: url)
            defer { coordinator.remove(store) }
            let context = ObjectContext(coordinator: coordinator)
            var byEntity: [[ManagedObject]] = before.entities.map { _ in [] }
            for (index, entity) in before.entities.enumerated() {
                // At least one object in the first entity: a store without a save has no file to migrate.
                for _ in 0..<random.int((index == 0 ? 1 : 0)...4) {
                    var values: [String: Value] = [:]
                    for attribute in entity.attributes {
                        values[attribute.name] = attribute.isOptional && random.chance(30) ? .null : value(attribute.type, &random)
                    }
                    byEntity[index].append(try context.insert(entity.name, values: values))
                }
            }
            if before.entities.count > 1 {
                for item in byEntity[1] where !byEntity[0].isEmpty && random.chance(70) {
                    try item.setObject(byEntity[0][random.int(0...byEntity[0].count - 1)], forKey: "owner")
                }
            }
            try context.save()
            for (index, entity) in before.entities.enumerated() {
                for object in byEntity[index] {
                    guard case .int(let reference) = object.objectID.referenceObject else { continue }
                    var values: [Int: Value] = [:]
                    for attribute in entity.attributes { values[attribute.id] = try object.value(forKey: attribute.name) }
                    written[reference] = (index, values)
                    if index == 1, let owner = try object.object(forKey: "owner"), case .int(let o) = owner.objectID.referenceObject {
                        owners[reference] = o
                    }
                }
            }
        }
        // The change, on a copy whose renames are relative to `before`.
        for index in before.entities.indices {
            before.entities[index].renamedFrom = nil
            for a in before.entities[index].attributes.indices { before.entities[index].attributes[a].renamedFrom = nil }
        }
        var after = before
        for _ in 0..<random.int(1...2) { change(&after, &random, next: &next) }
        let v2: ObjectModel
        do {
            v2 = try after.model()
        } catch {
            return "seed \(seed): the changed model is refused: \(error)"
        }
        do {
            _ = try JSONStoreMigrator(path: url.path, versions: [v1, v2], acceptedLosses: .all).migrate()
        } catch {
            return "seed \(seed): migrate failed: \(error)"
        }
        let opened: OpenStore
        do {
            opened = try OpenStore(url, model: v2, readOnly: true)
        } catch {
            return "seed \(seed): the migrated store does not open: \(error)"
        }
        defer { opened.close() }
        let nodes = Dictionary(opened.store.cacheNodes().compactMap { node -> (Int64, ObjectSnapshot)? in
            guard case .int(let reference) = node.objectID.referenceObject else { return nil }
            return (reference, node)
        }, uniquingKeysWith: { first, _ in first })
        guard nodes.count == written.count else { return "seed \(seed): \(written.count) objects written, \(nodes.count) after" }
        for (reference, old) in written {
            guard let node = nodes[reference] else { return "seed \(seed): object \(reference) lost" }
            let entity = after.entities[old.entity]
            guard node.objectID.entityName == entity.name else { return "seed \(seed): object \(reference) is a \(node.objectID.entityName)" }
            for attribute in entity.attributes {
                let got = node.value(forKey: attribute.name)
                var expected: Value = attribute.defaultValue ?? .null
                if let kept = old.values[attribute.id] {
                    expected = kept.isNull && !attribute.isOptional ? (attribute.defaultValue ?? .null) : kept
                }
                if got != expected {
                    return "seed \(seed): \(entity.name) \(reference).\(attribute.name) is \(String(describing: got)), expected \(expected)"
                }
            }
            if old.entity == 1 {
                let owner = node.value(forKey: "owner")
                let expected: Int64? = owners[reference]
                if case .object(let id) = owner { if id.referenceObject != .int(expected ?? -1) { return "seed \(seed): owner of \(reference) changed" } }
                else if expected != nil { return "seed \(seed): owner of \(reference) lost" }
            }
        }
        return nil
    }

    @Test("300 random models, stores and lightweight changes: the migrated store passes the checks and keeps every kept value")
    func randomChangesKeepValues() throws {
        let directory = try TemporaryDirectory()
        var failures: [String] = []
        for seed in UInt64(1)...300 {
            if let failure = try Self.run(seed: seed, in: directory) { failures.append(failure) }
            if failures.count >= 5 { break }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
}
