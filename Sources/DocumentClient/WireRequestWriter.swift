import DocumentProtocol
import GraphCore
import JSONCore

/// Writes GraphCore values in their wire form (PROTOCOL.md): attributes as in the store
/// file, relationships as object IDs, and objects inserted by the same save by their
/// temporary wire IDs.
enum WireRequestWriter {
    /// The temporary wire ID of an object about to be inserted: its temporary ID without
    /// `graph:///` (`Song/t…`), unique and never starting with `graph://`.
    static func temporaryWireID(_ id: ObjectID) -> String {
        let uri = id.uriRepresentation
        let prefix = "graph:///"
        return uri.hasPrefix(prefix) ? String(uri.dropFirst(prefix.count)) : uri
    }

    static func idText(_ id: ObjectID) -> String {
        id.isTemporary ? temporaryWireID(id) : id.uriRepresentation
    }

    /// `{"key": value, …}` for the properties at `indexes`.
    static func writeValues(_ values: [Value], of entity: EntityDescription, indexes: some Sequence<Int>, to out: JSONGenerator) throws {
        try WireObjectEncoder.writeValues(values, of: entity, indexes: indexes, idText: idText, sortsUnorderedByReference: false, to: out)
    }

    /// The `params` of `fetch`.
    static func fetch(_ request: FetchRequest, resultType: String, sortedAndPaged: Bool) -> ParamsWriter {
        { out in
            try out.openObject()
            try out.string(FetchMembers.entity)
            try out.string(request.entityName)
            if let predicate = request.predicate {
                try out.string(FetchMembers.predicate)
                try out.string(predicate.description)
            }
            if sortedAndPaged {
                if !request.sortDescriptors.isEmpty {
                    try out.string(FetchMembers.sort)
                    try out.openArray()
                    for descriptor in request.sortDescriptors {
                        try out.openObject()
                        try out.string(FetchMembers.sortKey)
                        try out.string(descriptor.keyPath)
                        try out.string(FetchMembers.ascending)
                        try out.bool(descriptor.ascending)
                        try out.string(FetchMembers.caseInsensitive)
                        try out.bool(descriptor.caseInsensitive)
                        try out.closeObject()
                    }
                    try out.closeArray()
                }
                if request.fetchLimit > 0 {
                    try out.string(FetchMembers.limit)
                    try out.integer(Int64(request.fetchLimit))
                }
                if request.fetchOffset > 0 {
                    try out.string(FetchMembers.offset)
                    try out.integer(Int64(request.fetchOffset))
                }
            }
            if !request.includesSubentities {
                try out.string(FetchMembers.includeSubentities)
                try out.bool(false)
            }
            try out.string(FetchMembers.resultType)
            try out.string(resultType)
            try out.closeObject()
        }
    }

    /// The `params` of `get`, with the IDs in their URI form.
    static func get(_ idTexts: [String], knownVersions: [Int64?]?) -> ParamsWriter {
        { out in
            try out.openObject()
            try out.string(GetMembers.ids)
            try out.openArray()
            for text in idTexts { try out.string(text) }
            try out.closeArray()
            if let knownVersions, knownVersions.contains(where: { $0 != nil }) {
                try out.string(GetMembers.versions)
                try out.openArray()
                for version in knownVersions {
                    if let version { try out.integer(version) } else { try out.null() }
                }
                try out.closeArray()
            }
            try out.closeObject()
        }
    }
}
