// libFuzzer target: one object line of `docserver import` (NDJSON, docs/OPERATIONS.md), decoded by
// `ImportDecoder` for the sample model and one store UUID: the JSON (yajl), the keys, the ID's
// store, entity and reference, the version, every value by its attribute's type, relationship IDs.
//
// The line must either decode or be refused with an `ImportProblem` that says something. A
// decoded object must be a concrete entity's, with a reference and a version from 1 to 2⁶³−1,
// one value per property, each attribute value of its attribute's type (or null) and each
// relationship value IDs of the destination's kind; decoding the line again gives the same.
import FuzzSupport
import Foundation
@testable import GraphCore
import JSONAtomicStore

private let model = FuzzModels.sample()
private let storeUUID = "8F0C2E7A-5B1D-4C3E-9A6F-0D2B4E6F8A1C"

@_cdecl("LLVMFuzzerTestOneInput")
public func importLineFuzzTest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    var decoder = ImportDecoder(model: model, storeUUID: storeUUID)
    let object: ImportedObject
    do {
        object = try decoder.decode(bytes, line: 1)
    } catch {
        if error.reason.isEmpty { fuzzFailure("an import line refused without a reason") }
        if (try? decoder.decodeThroughTree(bytes, line: 1)) != nil { fuzzFailure("the tree decodes a line that decode refuses") }
        return 0
    }
    // The fast path (events straight into values) and the tree must agree on every line.
    guard let tree = try? decoder.decodeThroughTree(bytes, line: 1) else { fuzzFailure("decode takes a line that the tree refuses") }
    if tree.reference != object.reference || tree.version != object.version || tree.values != object.values || tree.entity !== object.entity {
        fuzzFailure("decode and the tree give two objects for one line")
    }
    let entity = object.entity
    if entity.isAbstract { fuzzFailure("an object of the abstract entity \(entity.name)") }
    if object.reference < 1 || object.version < 1 { fuzzFailure("reference \(object.reference), version \(object.version)") }
    if object.values.count != entity.properties.count {
        fuzzFailure("\(object.values.count) values for the \(entity.properties.count) properties of \(entity.name)")
    }
    for (property, value) in zip(entity.properties, object.values) {
        switch property {
        case .attribute(let attribute):
            if !value.isNull && !value.isStored(as: attribute.type) {
                fuzzFailure("\(entity.name).\(attribute.name): \(value) is not a \(attribute.type)")
            }
        case .relationship(let relationship):
            let targets: [ObjectID]
            switch value {
            case .null where !relationship.isToMany: targets = []
            case .object(let id) where !relationship.isToMany: targets = [id]
            case .objects(let ids) where relationship.isToMany: targets = ids
            default: fuzzFailure("\(entity.name).\(relationship.name): \(value) for a \(relationship.isToMany ? "to-many" : "to-one")")
            }
            for id in targets where id.entity.isAbstract || !(model.entitiesByName[relationship.destination].map(id.entity.isKind(of:)) ?? false) {
                fuzzFailure("\(entity.name).\(relationship.name) names \(id), not a \(relationship.destination)")
            }
        }
    }
    var again = ImportDecoder(model: model, storeUUID: storeUUID)
    guard let second = try? again.decode(bytes, line: 1) else { fuzzFailure("the line decoded once, then not") }
    if second.reference != object.reference || second.version != object.version || second.values != object.values
        || second.entity !== entity {
        fuzzFailure("the line decoded twice gives two objects")
    }
    return 0
}

@main
enum ImportLineFuzzer {
    static func main() {
        runFuzzer(importLineFuzzTest)
    }
}
