// libFuzzer target: what a client's bytes go through in the server: the line framing
// (`LineFrameDecoder` in NIO's `ByteToMessageHandler`, on an `EmbeddedChannel`), then for
// each line the connection's `ConnectionSession` (HTTP detection, JSON-RPC parsing,
// batches, `hello`/auth, the parameter checks of fetch/get/save) and the real store thread
// (`StoreWorker`) on a JSON store in a scratch directory, started for each input from the
// empty store of `docs/PROTOCOL.md`'s examples (whose ids the seed requests use).
//
// The lines are handled one after another, as `ConnectionHandler` does (it handles one
// request at a time, in order); only its flow control (back-pressure on a slow reader) is
// not driven here: it needs a socket's writability, and a channel whose loop the store
// thread can call back into, which the deterministic `EmbeddedChannel` is not.
//
// Checks besides crashes: a line the fast readers take is read the same way by the general
// path (LineReaderCheck.swift); every answer is one line of valid JSON, a JSON-RPC response (or
// a non-empty array of them) whose `id` is the request's; a streamed fetch's parts are lines of
// valid JSON within the answer limit, each a part with the request's `id`; after the input the
// store file still loads.
@testable import DocumentServer
import DocumentProtocol
import FuzzSupport
import Foundation
import GraphCore
import JSONAtomicStore
import JSONCore
import Logging
import NIOCore
import NIOEmbedded

/// The longest line, smaller than the server's default so that the fuzzer reaches the limit.
private let maximumLineLength = 4096

private let model: ObjectModel = {
    JSONAtomicStore.register()
    return FuzzModels.sample()
}()
private let scratch = ScratchDirectory("wire-fuzz")
private let logger = Logger(label: "wire-fuzz") { _ in SwiftLogNoOpLogHandler() }

/// Collects the lines the framing passes on.
private final class LineCollector: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    var lines: [ByteBuffer] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lines.append(unwrapInboundIn(data))
    }
}

/// Splits `input` into lines with the server's framing, fed in small reads; also whether
/// the framing refused a line as too long (after which the server closes the connection).
private func frame(_ input: [UInt8]) -> (lines: [ByteBuffer], tooLong: Bool) {
    let collector = LineCollector()
    let channel = EmbeddedChannel()
    do {
        try channel.pipeline.syncOperations.addHandlers(
            ByteToMessageHandler(LineFrameDecoder(maximumLength: maximumLineLength)), collector)
    } catch {
        fuzzFailure("cannot set up the channel: \(error)")
    }
    var tooLong = false
    var offset = 0
    while offset < input.count && !tooLong {
        let end = min(input.count, offset + 61)
        do {
            try channel.writeInbound(ByteBuffer(bytes: input[offset..<end]))
        } catch is LineTooLongError {
            tooLong = true
        } catch {
            fuzzFailure("the framing failed with \(error)")
        }
        offset = end
    }
    _ = try? channel.finish()
    return (collector.lines, tooLong)
}

/// Waits for the store thread's answer.
private func perform(_ job: StoreJob, on worker: StoreWorker) -> Reply {
    let done = DispatchSemaphore(value: 0)
    let box = ReplyBox()
    worker.submit(job) { reply in
        box.reply = reply
        done.signal()
    }
    done.wait()
    guard let reply = box.reply else { fuzzFailure("the store thread answered nothing") }
    return reply
}

/// Runs a streamed fetch as `ConnectionHandler` does (in a task, its parts written as they
/// come) and waits for it; each part must be one line of valid JSON within the answer limit,
/// with the request's `id` and a `part` holding `objects` or `ids`, and no `result` or `error`.
private func stream(_ call: FetchCall, id: JSONValue, for line: ByteBuffer, shared: SharedState) -> Reply {
    let done = DispatchSemaphore(value: 0)
    let box = ReplyBox()
    let lineLimit = shared.maximumAnswerBytes - (RPCResponse.encodePart(id: id, []).count + 1)
    let request = String(decoding: line.readableBytesView, as: UTF8.self)
    Task {
        box.reply = await shared.worker.stream(call, on: nil, lineLimit: lineLimit, send: { part in
            let bytes = RPCResponse.encodePart(id: id, part)
            let text = String(decoding: bytes, as: UTF8.self)
            if bytes.contains(0x0A) { fuzzFailure("a part holds a newline: \(text)") }
            if bytes.count + 1 > shared.maximumAnswerBytes { fuzzFailure("a part passes the answer limit: \(bytes.count) bytes\nrequest: \(request)") }
            guard let value = try? bytes.withUnsafeBytes({ try JSONValue.parse($0, maximumDepth: 512) }),
                  value["jsonrpc"] == .string("2.0"), value["id"] == id, value["result"] == nil, value["error"] == nil,
                  let body = value["part"], body["objects"] != nil || body["ids"] != nil
            else { fuzzFailure("a part is not one of a streamed answer: \(text)\nrequest: \(request)") }
        })
        done.signal()
    }
    done.wait()
    guard let reply = box.reply else { fuzzFailure("a stream answered nothing") }
    return reply
}

private final class ReplyBox: @unchecked Sendable {
    var reply: Reply?
    var outcome: ConnectionSession.Outcome?
}

private struct UncheckedSession: @unchecked Sendable {
    let session: ConnectionSession
}

/// Runs a batch as `ConnectionHandler` does (in a task) and waits for it.
private func batch(_ elements: [JSONValue], _ session: ConnectionSession) -> ConnectionSession.Outcome {
    let done = DispatchSemaphore(value: 0)
    let box = ReplyBox()
    let unchecked = UncheckedSession(session: session)
    Task {
        box.outcome = await unchecked.session.handleBatch(elements)
        done.signal()
    }
    done.wait()
    guard let outcome = box.outcome else { fuzzFailure("a batch answered nothing") }
    return outcome
}

/// The request's id when the line is one request object with a usable id.
private func requestID(_ line: ByteBuffer) -> JSONValue? {
    guard let message = try? line.withUnsafeReadableBytes({ try JSONValue.parse($0) }),
          case .object = message, let id = message["id"]
    else { return nil }
    switch id {
    case .string, .number: return id
    default: return nil
    }
}

/// Checks that an answer is a JSON-RPC response line.
private func check(_ answer: [UInt8], for line: ByteBuffer) {
    let text = String(decoding: answer, as: UTF8.self)
    let request = String(decoding: line.readableBytesView, as: UTF8.self)
    if answer.contains(0x0A) { fuzzFailure("an answer holds a newline (it would end the line early): \(text)") }
    let value: JSONValue
    do {
        value = try answer.withUnsafeBytes { try JSONValue.parse($0, maximumDepth: 512) }
    } catch {
        fuzzFailure("an answer is not valid JSON (\(error)): \(text)\nrequest: \(request)")
    }
    func checkResponse(_ response: JSONValue) {
        guard case .object = response, response["jsonrpc"] == .string("2.0"), let id = response["id"],
              (response["result"] == nil) != (response["error"] == nil)
        else { fuzzFailure("an answer is not a JSON-RPC response: \(text)\nrequest: \(request)") }
        if case .object = id { fuzzFailure("an answer's id is an object: \(text)") }
        if case .array = id { fuzzFailure("an answer's id is an array: \(text)") }
    }
    switch value {
    case .array(let responses):
        if responses.isEmpty { fuzzFailure("an empty batch answer: \(text)\nrequest: \(request)") }
        responses.forEach(checkResponse)
    default:
        checkResponse(value)
        if let id = requestID(line), let answered = value["id"], answered != .null, answered != id {
            fuzzFailure("the answer's id \(answered.jsonText) is not the request's \(id.jsonText)\nrequest: \(request)\nanswer: \(text)")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func wireFuzzTest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let (lines, _) = frame(input)
    guard !lines.isEmpty else { return 0 }

    defer { scratch.empty() }
    let url = scratch.write(FuzzModels.emptySampleStore, to: "store.json")
    let cache = WireObjectCache()
    let graph: StoreGraph
    do {
        graph = try StoreGraph(model: model, storeType: JSONAtomicStore.storeType, storeURL: url, cache: cache)
    } catch {
        fuzzFailure("the seed store does not open: \(error)")
    }
    // The server's defaults, but a short time limit: a slow predicate is an answer (-32007), not a hang.
    var configuration = ServerConfiguration()
    configuration.requestTimeLimit = .seconds(2)
    graph.maximumAnswerBytes = configuration.maximumAnswerBytes
    let worker = StoreWorker(graph: graph, requestTimeLimit: configuration.requestTimeLimit)
    let shared: SharedState
    do {
        shared = try SharedState(model: model, graph: graph, worker: worker, cache: cache, configuration: configuration, logger: logger)
    } catch {
        fuzzFailure("the shared state cannot be made: \(error)")
    }
    let session = ConnectionSession(shared: shared, logger: logger)
    worker.start()

    lines: for line in lines {
        checkLineReaders(line)
        let outcome: ConnectionSession.Outcome
        switch session.begin(line) {
        case .finished(let finished): outcome = finished
        case .store(let job, let finish): outcome = finish(perform(job, on: worker))
        case .batch(let elements): outcome = batch(elements, session)
        case .hello(let check, let finish): outcome = finish(check.run())
        case .stream(let call, let id, let finish): outcome = finish(stream(call, id: id, for: line, shared: shared))
        }
        switch outcome {
        case .answer(let bytes):
            if let bytes { check(bytes, for: line) }
        case .answerAndClose(let bytes):
            if let bytes { check(bytes, for: line) }
            break lines
        }
    }
    worker.stop()

    let coordinator = StoreCoordinator(model: model)
    do {
        let store = try coordinator.addPersistentStore(type: JSONAtomicStore.storeType, at: url)
        coordinator.remove(store)
    } catch {
        fuzzFailure("after the requests the store file does not load: \(error)")
    }
    return 0
}

@main
enum WireFuzzer {
    static func main() {
        runFuzzer(wireFuzzTest)
    }
}
