import DocumentProtocol
import JSONCore
import NIOCore

/// The fast path of the most frequent write: a plain `save` (``SaveRequestLine``) read
/// straight from its line into a ``SaveCall`` (no JSON tree, no `Params`) and handed to the
/// writer as the general way hands it. The call is the one `SaveCall.parse` makes of the same
/// line, so the answer is byte for byte the same; any other line, or one whose save the
/// general way would refuse, goes the general way, which answers it or its error.
extension ConnectionSession {
    /// The step of a line the fast path takes, or nil when the line must go the general way:
    /// it is anything else, or the general way has more to do (authenticate, check a user's
    /// rules, log each request).
    /// `started`: when the line was read, to time the request (``RequestMeter``).
    func directSave(_ line: ByteBuffer, started: UInt64) -> Step? {
        guard authenticated, principal == nil, logger.logLevel > .debug else { return nil }  // a user with rules: the general way
        let read = line.withUnsafeReadableBytes { bytes -> (id: JSONValue, call: SaveCall)? in
            guard let request = SaveRequestLine.read(bytes),
                  let call = SaveCall.read(request, in: bytes, ids: &idReader) else { return nil }
            return (Self.requestID(request.id, in: bytes), call)
        }
        guard let (id, readCall) = read else { return nil }
        var call = readCall
        call.author = author
        call.answerLimit = shared.saveAnswerLimit(id: id, batchRemaining: nil)
        let meter = shared.meter
        return .store(.save(call)) { reply in
            // The parameters are read again only when the request was slow (for the slow log).
            meter.record(slot: RequestMeter.saveSlot, ok: reply.isResult, started: started,
                         params: { line.withUnsafeReadableBytes { (try? JSONValue.parse($0))?["params"] } })
            // The answer's size was bounded before the save was applied: sent as it is.
            return .answer(RPCResponse.encode(id: id, reply))
        }
    }
}
