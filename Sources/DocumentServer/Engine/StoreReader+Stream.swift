import DocumentProtocol
import GraphCore
import JSONCore

/// Sends the parts of a streamed answer (``PartWriter/send(_:)``, or a test's).
typealias SendPart = @Sendable ([UInt8]) async throws -> Void

extension StoreReader {
    /// The element of `snapshot` in a streamed answer: its wire form, or its ID as a JSON string.
    func element(for snapshot: ObjectSnapshot, of resultType: FetchCall.ResultType, epoch: Int64) throws -> [UInt8] {
        if resultType == .ids { return try JSONText.make { try WireObjectEncoder.writeURI(snapshot.objectID, to: $0) } }
        return try wireEntry(for: snapshot, epoch: epoch).bytes
    }

    /// On a reader thread: what a streamed fetch answers, found as ``fetch(_:)`` finds it (a
    /// state's matches are references to its objects: holding them copies nothing), or the error
    /// to answer instead.
    func streamMatches(_ call: FetchCall) -> Result<Matches, StreamRefusal> {
        do {
            if !state.isComplete, let database { return .success(try databaseMatches(call, in: database)) }
            return .success(try matches(call))
        } catch let error as DatabaseReads.Failure {
            return .failure(StreamRefusal(reply: .error(.storeUnavailable(error.description))))
        } catch {
            return .failure(StreamRefusal(reply: reply(to: error, of: call)))
        }
    }

    /// The answer a stream could not begin with.
    struct StreamRefusal: Error {
        let reply: Reply
    }

    /// Sends `found`'s page in parts through `send` (`lineLimit`: the most bytes a part's text
    /// may take) and returns the last line's reply: the rest, `count` and the plan, or the error
    /// that ended the stream.
    func stream(_ found: Matches, of call: FetchCall, lineLimit: Int, send: SendPart) async -> Reply {
        var parts = AnswerParts(resultType: call.resultType, lineLimit: lineLimit)
        let epoch = state.clearingEpoch
        do {
            for snapshot in found.page {
                if let part = try parts.add(try element(for: snapshot, of: call.resultType, epoch: epoch), limit: maximumAnswerBytes) {
                    try await send(part)
                }
            }
            let plan = try call.explain ? Self.planText(found.plan, database: found.databasePlan) : nil
            return try await finish(&parts, plan: plan, send: send)
        } catch {
            return Self.streamReply(to: error)
        }
    }

    /// A fetch one statement answers, its rows sent in parts as PostgreSQL sends them
    /// (``GraphCore/DatabaseFetcher/streamInOneStatement(_:receive:)``), in the caller's task on
    /// the connection's event loop; nil when one statement cannot answer it (nothing was sent: a
    /// reader thread then finds its matches, ``streamMatches(_:)``).
    func stream(_ call: FetchCall, with fetcher: any DatabaseFetcher, lineLimit: Int, send: SendPart,
                catchUp: (Int64) async -> ReadState?) async -> Reply? {
        var request = databaseRequest(of: call)
        request.resultBytesLimit = nil  // the rows are sent as they come, never held together
        var parts = AnswerParts(resultType: call.resultType, lineLimit: lineLimit)
        let epoch = state.clearingEpoch
        let limit = maximumAnswerBytes
        do {
            guard let (through, databasePlan) = try await fetcher.streamInOneStatement(request, receive: { snapshots in
                for snapshot in snapshots {
                    if let part = try parts.add(try element(for: snapshot, of: call.resultType, epoch: epoch), limit: limit) {
                        try await send(part)
                    }
                }
            }) else { return nil }
            // As for a fetch answered whole: the connection's next reads come from a state that
            // holds the commits the answer holds.
            if through > state.sequence { _ = await catchUp(through) }
            let examined = FetchPlan(access: .scan, isSortedByIndex: true, objectsExamined: parts.count)
            return try await finish(&parts, plan: call.explain ? Self.planText(examined, database: databasePlan) : nil, send: send)
        } catch let error as RPCError {
            return Self.streamReply(to: error)  // a part's (an object too large for a line)
        } catch let error as PartWriter.Stopped {
            return Self.streamReply(to: error)
        } catch {
            let classified = DatabaseReads.classified(error)
            if let failure = classified as? DatabaseReads.Failure { return .error(.storeUnavailable(failure.description)) }
            return reply(to: classified, of: call)
        }
    }

    /// The `plan` member's value, for `explain`.
    private static func planText(_ plan: FetchPlan, database: String?) throws -> [UInt8] {
        try JSONText.make { try FetchPlanEncoder.writeValue(plan, database: database, to: $0) }
    }

    /// The last line's `result` (sending the part before it when they would not fit together).
    private func finish(_ parts: inout AnswerParts, plan: [UInt8]?, send: SendPart) async throws -> Reply {
        let (lastPart, result) = parts.finish(plan: plan)
        if let lastPart { try await send(lastPart) }
        return .result(result)
    }

    /// The reply that ends a stream that failed after it began.
    private static func streamReply(to error: any Error) -> Reply {
        switch error {
        case let error as RPCError: .error(error)
        case let stopped as PartWriter.Stopped: .error(.storeUnavailable("the answer stopped: \(stopped.reason)"))
        default: .error(.storeUnavailable("an object could not be encoded: \(error)"))
        }
    }
}
