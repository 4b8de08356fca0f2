import DocumentProtocol
import GraphCore
import JSONCore
import Logging

/// What all connections share: the model, the engine and the settings.
struct SharedState: Sendable {
    let model: ObjectModel
    /// The fetch predicates' formats, parsed once each (``PredicateCache``).
    let predicates: PredicateCache
    /// The `model` result: the model file as compact JSON.
    let modelResult: [UInt8]
    /// The members of the `hello` result before `seq`.
    private let helloMembers: [(String, JSONValue)]
    /// The users file and the token: who may connect, what each user may do.
    let access: AccessControl
    let worker: StoreWorker
    let cache: WireObjectCache
    let logger: Logger
    /// The batch and answer limits.
    let maximumBatchRequests: Int
    let maximumAnswerBytes: Int
    let maximumBatchAnswerBytes: Int
    /// Times the requests and keeps the slow log; with the figures for `stats` and `/metrics`.
    let status: ServerStatus
    var meter: RequestMeter { status.meter }

    /// What the connections of a server on `graph` share, with its configuration's token and
    /// limits: the one place that puts it together (the server and the wire fuzz target use it).
    init(model: ObjectModel, graph: StoreGraph, worker: StoreWorker, cache: WireObjectCache,
         configuration: ServerConfiguration, logger: Logger) throws {
        let modelFile = try model.jsonRepresentation().withUnsafeBytes { try JSONValue.parse($0) }
        self.model = model
        predicates = PredicateCache(model: model)
        modelResult = Array(modelFile.jsonText.utf8)
        helloMembers = [
            ("server", .string("docserver")), ("version", .string(DocumentServer.version)), ("protocol", .integer(1)),
            ("storeUUID", .string(graph.store.identifier)), ("modelHash", .string(model.versionHash)),
        ]
        do {
            access = try AccessControl(usersPath: configuration.usersFile, token: configuration.authToken, model: model, logger: logger)
        } catch {
            throw DocumentServerError.users(error.description)
        }
        self.worker = worker
        self.cache = cache
        self.logger = logger
        maximumBatchRequests = configuration.maximumBatchRequests
        maximumAnswerBytes = configuration.maximumAnswerBytes
        maximumBatchAnswerBytes = configuration.maximumBatchAnswerBytes
        status = ServerStatus(graph: graph, worker: worker,
                              meter: RequestMeter(slowMilliseconds: configuration.slowRequestMilliseconds, logger: logger))
    }

    /// The `hello` result: who the server is, and `seq`, the number of the last commit the
    /// readers see now.
    func helloResult() -> [UInt8] {
        Array(JSONValue.object(helloMembers + [("seq", .integer(worker.reader.state.sequence))]).jsonText.utf8)
    }

    /// How long the answer to the `save` request `id` may be: within ``maximumAnswerBytes``
    /// and, in a batch, within `batchRemaining`, the bytes its answers may still take. Checked
    /// before the save is applied, so that its answer is never replaced by an error after it.
    func saveAnswerLimit(id: JSONValue, batchRemaining: Int?) -> SaveCall.AnswerLimit {
        let envelope = RPCResponse.encode(id: id, .result([])).count
        if let batchRemaining, batchRemaining < maximumAnswerBytes {
            return SaveCall.AnswerLimit(resultBytes: batchRemaining - envelope, limitKind: .batchAnswer, limitBytes: maximumBatchAnswerBytes)
        }
        return SaveCall.AnswerLimit(resultBytes: maximumAnswerBytes - envelope, limitKind: .answer, limitBytes: maximumAnswerBytes)
    }

    /// The line answering request `id`: `reply`, or a `too large` error when that would be
    /// longer than ``maximumAnswerBytes``. Not for a save's answer, whose size was checked
    /// before the save was applied (``saveAnswerLimit(id:batchRemaining:)``).
    func encode(id: JSONValue, _ reply: Reply) -> [UInt8] {
        if case .result(let text) = reply, text.count > maximumAnswerBytes - 64 {
            let bytes = RPCResponse.encode(id: id, reply)
            if bytes.count > maximumAnswerBytes {
                return RPCResponse.encode(id: id, .error(.tooLarge(.answer, limit: maximumAnswerBytes)))
            }
            return bytes
        }
        return RPCResponse.encode(id: id, reply)
    }
}
