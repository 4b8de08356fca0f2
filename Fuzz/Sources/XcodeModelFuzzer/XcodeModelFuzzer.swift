// libFuzzer target: the Xcode model importer (XMLParser over libxml2, the mapping of every
// element and attribute, the model's resolution).
//
// The input is the bytes of an `.xcdatamodel`'s `contents` file. It must either import or
// fail with a ModelError that has a message; every note names a line. When it imports, the
// model's JSON model file must load back to a model with the same version hash that writes
// the same bytes again. The same bytes are also read as a mapping model's `xcmapping.xml`:
// it must read or fail with a message, and every property mapping read names a real line.
import FuzzSupport
import Foundation
@testable import GraphCore

@_cdecl("LLVMFuzzerTestOneInput")
public func xcodeModelFuzzTest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Data(bytes: $0, count: size) } ?? Data()
    checkMappingModel(bytes)
    let imported: ModelImport
    do {
        imported = try XcodeModelReader.read(bytes, file: "fuzz/contents")
    } catch {
        if error.description.isEmpty { fuzzFailure("a model error without a message") }
        if case .unusableXcodeModel(_, let errors) = error {
            if errors.isEmpty { fuzzFailure("an unusable model without errors") }
            if let note = errors.first(where: { ($0.line ?? 1) < 1 }) { fuzzFailure("a note without a real line: \(note)") }
        }
        return 0
    }
    if let note = imported.notes.first(where: { $0.line.map { $0 < 1 } ?? true }) {
        fuzzFailure("a note without a line: \(note)")
    }
    if let note = imported.notes.first(where: { $0.severity == .error }) {
        fuzzFailure("a model imported with an error note: \(note)")
    }
    let json = imported.model.jsonRepresentation()
    let again: ObjectModel
    do {
        again = try ObjectModel(json: json, path: "fuzz.model.json")
    } catch {
        fuzzFailure("the JSON model of an imported model does not load: \(error)\n\(String(decoding: json, as: UTF8.self))")
    }
    if again.versionHash != imported.model.versionHash {
        fuzzFailure("the JSON model of an imported model has another version hash")
    }
    if again.jsonRepresentation() != json {
        fuzzFailure("the JSON model of an imported model does not write the same bytes again")
    }
    return 0
}

@main
enum XcodeModelFuzzer {
    static func main() {
        runFuzzer(xcodeModelFuzzTest)
    }
}

/// The bytes as a mapping model's `xcmapping.xml` (``XcodeMappingModel/read(_:name:file:)``).
private func checkMappingModel(_ bytes: Data) {
    let mapping: XcodeMappingModel
    do {
        mapping = try XcodeMappingModel.read(bytes, name: "Fuzz", file: "fuzz/xcmapping.xml")
    } catch {
        if "\(error)".isEmpty { fuzzFailure("a mapping model error without a message") }
        return
    }
    for entity in mapping.entityMappings {
        if let property = (entity.attributes + entity.relationships).first(where: { $0.line < 1 }) {
            fuzzFailure("a property mapping without a real line: \(property)")
        }
    }
    _ = (mapping.sourceVersion, mapping.destinationVersion, mapping.bundleName)
}
