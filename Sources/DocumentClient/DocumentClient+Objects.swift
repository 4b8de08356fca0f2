import DocumentProtocol
import Foundation
import GraphCore
import JSONCore
import NIOCore

/// What a `fetch` answered: objects with values, IDs, or a count.
public struct RemoteFetchResult: Sendable {
    /// The objects with their values, when the fetch asked for objects.
    public var objects: [ObjectSnapshot] = []
    /// The objects' IDs, when the fetch asked for IDs.
    public var ids: [ObjectID] = []
    /// How many objects matched, when the fetch asked for a count.
    public var count: Int?
}

/// What a `save` answered.
public struct RemoteSaveResult: Sendable {
    /// The permanent ID of each inserted object, by its temporary ID.
    public var permanentIDs: [ObjectID: ObjectID] = [:]
    /// The new version of every inserted or changed object.
    public var versions: [ObjectID: Int64] = [:]
    /// Every deleted object, those deleted by a cascade included.
    public var deleted: [ObjectID] = []
    /// Objects the save changed through inverses or delete rules that the request did not name.
    public var updated: [ObjectID] = []
    /// The number of the commit that made the save durable; nil from a server that does not
    /// number its commits.
    public var seq: Int64?
}

extension DocumentClient {
    // MARK: - Async API, with GraphCore's types

    /// The server's model.
    public func model() async throws -> ObjectModel {
        try ensureOpen()
        return try await modelFuture().get()
    }

    /// The objects matching `request` with their values, sorted and paged by the server.
    public func fetch(_ request: FetchRequest, model: ObjectModel) async throws -> [ObjectSnapshot] {
        try ensureOpen()
        return try await fetchFuture(request, model: model, resultType: "objects", sortedAndPaged: true).get().objects
    }

    /// The IDs of the objects matching `request`, sorted and paged by the server.
    public func fetchIDs(_ request: FetchRequest, model: ObjectModel) async throws -> [ObjectID] {
        try ensureOpen()
        return try await fetchFuture(request, model: model, resultType: "ids", sortedAndPaged: true).get().ids
    }

    /// How many objects match `request` (within its offset and limit).
    public func count(_ request: FetchRequest, model: ObjectModel) async throws -> Int {
        try ensureOpen()
        return try await fetchFuture(request, model: model, resultType: "count", sortedAndPaged: true).get().count ?? 0
    }

    /// The objects with these IDs, nil for those that do not exist.
    public func get(_ ids: [ObjectID], model: ObjectModel) async throws -> [ObjectSnapshot?] {
        try ensureOpen()
        return try await getFuture(ids, knownVersions: nil, model: model).get().map { object in
            if case .snapshot(let snapshot)? = object { return snapshot }
            return nil
        }
    }

    /// Applies a save, all or nothing; inserted objects may carry temporary IDs.
    public func save(_ request: SaveChangesRequest, model: ObjectModel) async throws -> RemoteSaveResult {
        try ensureOpen()
        return try await saveFuture(SaveRequestWriter(request: request, baselines: [:]), model: model).get()
    }

    // MARK: - Futures, shared with RemoteStore

    func modelFuture() -> EventLoopFuture<ObjectModel> {
        request(ProtocolMethod.model.rawValue, params: nil).flatMapThrowing { result in
            try ObjectModel(json: Data(result.jsonText.utf8), path: "the model of docserver at \(self.configuration.address)")
        }
    }

    func fetchFuture(_ request: FetchRequest, model: ObjectModel, resultType: String, sortedAndPaged: Bool) -> EventLoopFuture<RemoteFetchResult> {
        let address = configuration.address
        return self.request(ProtocolMethod.fetch.rawValue, params: WireRequestWriter.fetch(request, resultType: resultType, sortedAndPaged: sortedAndPaged))
            .flatMapThrowing { result in
                var reader = WireObjectReader(model: model, address: address)
                var answer = RemoteFetchResult()
                switch resultType {
                case FetchMembers.ResultType.count.rawValue:
                    guard case .number(let text)? = result[FetchMembers.ResultType.count.rawValue], let count = Int(text) else {
                        throw DocumentClientError.invalidResponse(address: address, reason: "the answer to `fetch` has no integer count")
                    }
                    answer.count = count
                case FetchMembers.ResultType.ids.rawValue:
                    answer.ids = try reader.objectIDs(result[FetchMembers.ResultType.ids.rawValue], at: "result.ids")
                default:
                    guard case .array(let elements)? = result[FetchMembers.ResultType.objects.rawValue] else {
                        throw DocumentClientError.invalidResponse(address: address, reason: "the answer to `fetch` has no objects array")
                    }
                    answer.objects.reserveCapacity(elements.count)
                    for (index, element) in elements.enumerated() {
                        guard case .snapshot(let snapshot) = try reader.object(element, at: "result.objects[\(index)]") else {
                            throw DocumentClientError.invalidResponse(address: address, reason: "result.objects[\(index)] has no values")
                        }
                        answer.objects.append(snapshot)
                    }
                }
                return answer
            }
    }

    func getFuture(_ ids: [ObjectID], knownVersions: [Int64?]?, model: ObjectModel) -> EventLoopFuture<[WireObject?]> {
        let address = configuration.address
        // Each ID is written once; the answer names the same IDs, which then need no parsing.
        let texts = ids.map(\.uriRepresentation)
        return request(ProtocolMethod.get.rawValue, params: WireRequestWriter.get(texts, knownVersions: knownVersions)).flatMapThrowing { result in
            guard case .array(let elements)? = result[GetMembers.objects], elements.count == ids.count else {
                throw DocumentClientError.invalidResponse(address: address, reason: "the answer to `get` has no objects array with one element per ID")
            }
            var reader = WireObjectReader(model: model, address: address)
            for (text, id) in zip(texts, ids) { reader.remember(id, as: text) }
            var objects: [WireObject?] = []
            objects.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                if case .null = element {
                    objects.append(nil)
                    continue
                }
                let object = try reader.object(element, at: "result.objects[\(index)]")
                guard object.objectID == ids[index] else {
                    throw DocumentClientError.invalidResponse(address: address, reason: "result.objects[\(index)] is not the object asked for there")
                }
                objects.append(object)
            }
            return objects
        }
    }

    func saveFuture(_ writer: SaveRequestWriter, model: ObjectModel) -> EventLoopFuture<RemoteSaveResult> {
        let address = configuration.address
        let temporaryIDs = writer.temporaryIDs
        return request(ProtocolMethod.save.rawValue, params: { try writer.write(to: $0) }).flatMapThrowing { result in
            var reader = WireObjectReader(model: model, address: address)
            var answer = RemoteSaveResult()
            if case .object(let pairs)? = result[SaveMembers.ids] {
                for (temporary, permanent) in pairs {
                    guard let temporaryID = temporaryIDs[temporary] else { continue }
                    answer.permanentIDs[temporaryID] = try reader.objectID(permanent, at: "result.ids.\(temporary)")
                }
            }
            guard answer.permanentIDs.count == temporaryIDs.count else {
                throw DocumentClientError.invalidResponse(address: address, reason: "the answer to `save` does not give every inserted object its ID")
            }
            if case .object(let pairs)? = result[SaveMembers.versions] {
                for (id, version) in pairs {
                    guard case .number(let text) = version, let number = Int64(text) else {
                        throw DocumentClientError.invalidResponse(address: address, reason: "result.versions.\(id) is not an integer")
                    }
                    answer.versions[try reader.objectID(id, at: "result.versions")] = number
                }
            }
            answer.deleted = try reader.objectIDs(result[SaveMembers.deleted] ?? .array([]), at: "result.deleted")
            answer.updated = try reader.objectIDs(result[SaveMembers.updated] ?? .array([]), at: "result.updated")
            switch result["seq"] {
            case nil:
                break
            case .number(let text)? where Int64(text).map({ $0 > 0 }) == true:
                answer.seq = Int64(text)
            default:
                throw DocumentClientError.invalidResponse(address: address, reason: "result.seq is not a positive integer")
            }
            return answer
        }
    }
}
