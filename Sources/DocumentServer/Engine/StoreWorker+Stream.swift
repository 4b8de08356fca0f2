import DocumentProtocol
import GraphCore
import NIOCore

extension StoreWorker {
    /// A `fetch` with `stream: true`: its parts sent through `send` as its matches are found, and
    /// the reply of its last line returned (`lineLimit`: the most bytes a part's text may take).
    ///
    /// With a bounded cache, from a connection on event loop `loop`, a fetch one statement
    /// answers runs there and sends the database's rows on as they come; any other fetch finds
    /// its matches on a reader thread as an answer whole would (a state's are references to its
    /// objects; a bounded cache's read from the database within twice the answer's limit), and
    /// they are encoded and sent here, part by part.
    func stream(_ call: FetchCall, on loop: (any EventLoop)?, lineLimit: Int, send: @escaping SendPart) async -> Reply {
        let started = call.started(timeLimit: requestTimeLimit)
        if let loop, let reads = databaseLoop(loop, after: call.after) {
            let reader = self.reader
            let answered: Reply? = await Task(executorPreference: reads.executor) {
                await reader.stream(started, with: reads.fetcher, lineLimit: lineLimit, send: send,
                                    catchUp: { await self.stateHolding(through: $0) })
            }.value
            if let answered { return answered }
        }
        let found: (StoreReader, Result<StoreReader.Matches, StoreReader.StreamRefusal>) = await withCheckedContinuation { continuation in
            read(after: call.after, refused: { continuation.resume(returning: (self.reader, .failure(.init(reply: $0)))) }) { reader in
                continuation.resume(returning: (reader, reader.streamMatches(started)))
            }
        }
        switch found.1 {
        case .failure(let refusal): return refusal.reply
        case .success(let matches): return await found.0.stream(matches, of: started, lineLimit: lineLimit, send: send)
        }
    }
}
