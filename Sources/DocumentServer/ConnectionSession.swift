import GraphCore
import JSONAtomicStore
import Logging
import NIOCore

/// What all connections share: the model, the store thread and the settings.
struct SharedState: Sendable {
    let model: ObjectModel
    /// The `model` result: the model file as compact JSON.
    let modelResult: [UInt8]
    /// The `hello` result.
    let helloResult: [UInt8]
    let authToken: String?
    let worker: StoreWorker
    let logger: Logger
}

/// One connection's conversation: it turns each line into the line to answer (if any),
/// keeps whether the client has authenticated, and spots HTTP. Requests run one after
/// another, so a connection always sees its own earlier writes.
///
/// Not `Sendable`: it belongs to the task serving its connection.
final class ConnectionSession {
    /// What to do after a line.
    enum Outcome {
        /// Send these bytes (a line without its `\n`), or nothing.
        case answer([UInt8]?)
        /// Send these bytes, if any, then close the connection.
        case answerAndClose([UInt8]?)
    }

    private let shared: SharedState
    private let logger: Logger
    private var authenticated: Bool
    private var sawFirstLine = false

    init(shared: SharedState, peer: String) {
        self.shared = shared
        var logger = shared.logger
        logger[metadataKey: "peer"] = "\(peer)"
        self.logger = logger
        authenticated = shared.authToken == nil
    }

    func handle(_ line: ByteBuffer) async -> Outcome {
        if line.readableBytesView.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return .answer(nil) }
        if !sawFirstLine {
            sawFirstLine = true
            if HTTPDetection.looksLikeHTTP(line) {
                logger.warning("closing a connection that speaks HTTP (a browser or an HTTP client, not a docserver client)")
                return .answerAndClose(nil)
            }
        }
        let message: JSONValue
        do {
            message = try line.withUnsafeReadableBytes { try JSONValue.parse($0, maximumDepth: 128, source: "message") }
        } catch JSONStoreError.invalidJSON(_, let offset, let lineNumber, let column, let reason) {
            logger.debug("parse error", metadata: ["offset": "\(offset)", "reason": "\(reason)"])
            return .answer(RPCResponse.encode(id: .null, .error(.parseError(offset: offset, line: lineNumber, column: column, reason: reason))))
        } catch JSONStoreError.notAStoreFile(_, let reason) {
            return .answer(RPCResponse.encode(id: .null, .error(.parseError(reason: reason))))
        } catch {
            return .answer(RPCResponse.encode(id: .null, .error(.parseError(reason: "\(error)"))))
        }
        guard case .array(let elements) = message else {
            let (bytes, close) = await handleRequest(message)
            return close ? .answerAndClose(bytes) : .answer(bytes)
        }
        guard !elements.isEmpty else {
            return .answer(RPCResponse.encode(id: .null, .error(.invalidRequest("a batch must hold at least one request"))))
        }
        var answers: [[UInt8]] = []
        var close = false
        for element in elements {
            let (bytes, closeAfter) = await handleRequest(element)
            if let bytes { answers.append(bytes) }
            if closeAfter {
                close = true
                break
            }
        }
        let bytes = answers.isEmpty ? nil : [UInt8(ascii: "[")] + Array(answers.joined(separator: [UInt8(ascii: ",")])) + [UInt8(ascii: "]")]
        return close ? .answerAndClose(bytes) : .answer(bytes)
    }

    private func handleRequest(_ message: JSONValue) async -> (bytes: [UInt8]?, close: Bool) {
        switch RPCRequest.parse(message) {
        case .failure(let rejection):
            return (RPCResponse.encode(id: rejection.id, .error(rejection.error)), false)
        case .success(let request):
            logger.debug("request", metadata: ["method": "\(RPCError.capped(request.method))", "id": "\(request.id?.jsonText ?? "none")"])
            let (reply, close) = await dispatch(request)
            if case .error(let error) = reply {
                logger.debug("error answer", metadata: ["method": "\(RPCError.capped(request.method))", "code": "\(error.code)", "message": "\(error.message)"])
            }
            guard let id = request.id else { return (nil, close) }
            return (RPCResponse.encode(id: id, reply), close)
        }
    }

    private func dispatch(_ request: RPCRequest) async -> (Reply, close: Bool) {
        if request.method == "hello" { return hello(request.params) }
        guard authenticated else {
            return (.error(.unauthorized("this server needs a token: send hello with it first")), false)
        }
        do {
            switch request.method {
            case "ping":
                _ = try Params(request.params, allowed: [])
                return (.result(Array(#""pong""#.utf8)), false)
            case "model":
                _ = try Params(request.params, allowed: [])
                return (.result(shared.modelResult), false)
            case "fetch":
                let call = try FetchCall.parse(request.params, model: shared.model)
                return (await shared.worker.read { $0.fetch(call) }, false)
            case "get":
                let call = try GetCall.parse(request.params, model: shared.model)
                return (await shared.worker.read { $0.get(call) }, false)
            case "save":
                let call = try SaveCall.parse(request.params, model: shared.model)
                return (await shared.worker.save(call), false)
            default:
                return (.error(.methodNotFound(request.method)), false)
            }
        } catch {
            return (.error(error), false)
        }
    }

    /// `hello`: checks the token when the server has one; a wrong one closes the connection.
    private func hello(_ params: JSONValue) -> (Reply, close: Bool) {
        let token: String?
        do {
            let hello = try Params(params, allowed: ["token", "client"])
            token = try hello.optionalString("token")
            if let client = try hello.optionalString("client") {
                logger.info("hello", metadata: ["client": "\(RPCError.capped(client))"])
            }
        } catch {
            return (.error(error), false)
        }
        if let expected = shared.authToken {
            guard let token, Self.constantTimeEqual(token, expected) else {
                logger.warning("refused a hello with a \(token == nil ? "missing" : "wrong") token; closing the connection")
                return (.error(.unauthorized(token == nil ? "this server needs a token in hello" : "wrong token")), true)
            }
            authenticated = true
        }
        return (.result(shared.helloResult), false)
    }

    /// Compares without stopping at the first difference, so timing does not reveal the token.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }
}

/// Recognizes the first line of an HTTP request (or a header line), so that a web page
/// cannot make a browser talk to the server (a cross-protocol attack).
enum HTTPDetection {
    private static let prefixes: [[UInt8]] = ["GET ", "POST ", "PUT ", "HEAD ", "DELETE ", "OPTIONS ", "PATCH ", "CONNECT ", "TRACE "]
        .map { Array($0.utf8) }

    static func looksLikeHTTP(_ line: ByteBuffer) -> Bool {
        let bytes = Array(line.readableBytesView.prefix(16))
        if prefixes.contains(where: { bytes.starts(with: $0) }) { return true }
        // A header line: a token, then a colon ("Host: …", "User-Agent: …").
        let lowered = bytes.map { $0 | 0x20 }
        return lowered.starts(with: Array("host:".utf8)) || lowered.starts(with: Array("user-agent:".utf8))
    }
}
