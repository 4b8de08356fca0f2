import Foundation
import GraphCore
import JSONAtomicStore
import JSONCore

/// The NDJSON format of `docserver export` and `docserver import` (docs/OPERATIONS.md,
/// "Export and import"): a header line, then one object a line in the wire form.
enum ExportFormat {
    /// The header's `format`.
    static let name = "docserver-export"
    /// The header's `formatVersion`.
    static let version: Int64 = 1

    /// The header: what a reader checks before it reads objects.
    struct Header {
        /// Informational: the model file's name, or `sample` for the built-in model.
        var modelName: String
        var modelVersionHash: String
        var entityVersionHashes: [String: String]
        /// The store's UUID: the store part of every object ID in the export.
        var storeUUID: String
        /// The last commit the exported objects hold.
        var commitSequence: Int64
        /// The store's free-form metadata.
        var userInfo: [String: String]

        func write(to out: JSONGenerator) throws {
            func sorted(_ pairs: [String: String]) -> [(key: String, value: String)] {
                pairs.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
            }
            try out.openObject()
            try out.string("format")
            try out.string(ExportFormat.name)
            try out.string("formatVersion")
            try out.integer(ExportFormat.version)
            try out.string("model")
            try out.string(modelName)
            try out.string("modelVersionHash")
            try out.string(modelVersionHash)
            try out.string("entityVersionHashes")
            try out.openObject()
            for (key, value) in sorted(entityVersionHashes) {
                try out.string(key)
                try out.string(value)
            }
            try out.closeObject()
            try out.string("storeUUID")
            try out.string(storeUUID)
            try out.string("commitSequence")
            try out.integer(commitSequence)
            try out.string("userInfo")
            try out.openObject()
            for (key, value) in sorted(userInfo) {
                try out.string(key)
                try out.string(value)
            }
            try out.closeObject()
            try out.closeObject()
        }

        /// Reads a header line; the error says what is wrong with it.
        static func read(_ json: JSONValue) throws(ImportProblem) -> Header {
            guard case .object(let pairs) = json else {
                throw ImportProblem("the first line must be the export's header (an object with \"format\": \"\(ExportFormat.name)\"), not \(json.kindDescription)")
            }
            guard case .string(let format)? = json["format"], format == ExportFormat.name else {
                throw ImportProblem("the first line is not a \(ExportFormat.name) header: its \"format\" must be \"\(ExportFormat.name)\"")
            }
            guard case .number(let versionText)? = json["formatVersion"], Int64(versionText) == ExportFormat.version else {
                throw ImportProblem("format version \(json["formatVersion"]?.jsonText ?? "(none)") is not supported (this program reads version \(ExportFormat.version))")
            }
            let known: Set<String> = ["format", "formatVersion", "model", "modelVersionHash", "entityVersionHashes", "storeUUID",
                                      "commitSequence", "userInfo"]
            if let unknown = pairs.first(where: { !known.contains($0.key) }) {
                throw ImportProblem("unknown key \"\(unknown.key)\" in the header")
            }
            func strings(_ key: String) throws(ImportProblem) -> [String: String] {
                guard let value = json[key] else { return [:] }
                guard case .object(let members) = value else { throw ImportProblem("the header's \"\(key)\" must be an object of strings") }
                var result: [String: String] = [:]
                for member in members {
                    guard case .string(let text) = member.value else {
                        throw ImportProblem("the header's \"\(key)\".\"\(member.key)\" must be a string")
                    }
                    result[member.key] = text
                }
                return result
            }
            guard case .string(let hash)? = json["modelVersionHash"] else { throw ImportProblem("the header lacks \"modelVersionHash\" (a string)") }
            guard case .string(let uuidText)? = json["storeUUID"], let uuid = UUID(uuidString: uuidText) else {
                throw ImportProblem("the header lacks \"storeUUID\" (a UUID: the store part of the object IDs)")
            }
            var sequence: Int64 = 0
            if let value = json["commitSequence"] {
                guard case .number(let text) = value, let number = Int64(text), number >= 0 else {
                    throw ImportProblem("the header's \"commitSequence\" must be an integer of 0 or more")
                }
                sequence = number
            }
            var modelName = ""
            if case .string(let name)? = json["model"] { modelName = name }
            return Header(modelName: modelName, modelVersionHash: hash, entityVersionHashes: try strings("entityVersionHashes"),
                          storeUUID: uuid.uuidString.lowercased(), commitSequence: sequence, userInfo: try strings("userInfo"))
        }

        /// The entities whose version hashes differ between the header and `model` (or that
        /// only one of them has); empty when the export was written for `model`.
        func differingEntities(from model: ObjectModel) -> [String] {
            if modelVersionHash == model.versionHash { return [] }
            let names = Set(entityVersionHashes.keys).union(model.entityVersionHashes.keys)
            let differing = names.filter { entityVersionHashes[$0] != model.entityVersionHashes[$0] }.sorted()
            return differing.isEmpty ? ["(the model's hash differs)"] : differing
        }
    }

    /// The name a header gives a model: its file's name, or `sample`.
    static func modelName(path: String?) -> String {
        guard let path else { return "sample" }
        return URL(fileURLWithPath: path).lastPathComponent
    }
}

