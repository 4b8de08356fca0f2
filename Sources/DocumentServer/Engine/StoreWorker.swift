import DocumentProtocol
import Foundation
import GraphCore
import NIOCore

/// Work for the engine.
enum StoreJob: Sendable {
    case fetch(FetchCall)
    case get(GetCall)
    case save(SaveCall)
    case subscribe(SubscribeCall, SubscriptionSink)
    case unsubscribe(Int, SubscriptionSink)
    case changes(ChangesCall)
    case backup(BackupCall)
}

/// The engine: one writer thread that owns the server's ``StoreGraph``, and reader threads
/// (``ReaderPool``) that answer reads from the latest published ``ReadState``.
///
/// Reads never wait for the writer: they take the state published last and work on it in
/// parallel. The writer takes every save waiting in each turn; they are staged together and
/// written with one durable save (group commit), then the next state is published and the
/// saves are answered. While that write runs, new saves queue up for the next turn.
final class StoreWorker: @unchecked Sendable {
    // @unchecked: `graph` is touched only by the writer thread (and by `init`/`stop`, before
    // it starts and after it ended); `saves` and `state` only with `condition` locked; the
    // readers use only `publisher` and `cache`, which are Sendable.
    private enum State {
        case idle, running, stopping, stopped
    }

    private let graph: StoreGraph
    private let publisher: StatePublisher
    private let cache: WireObjectCache
    private let maximumAnswerBytes: Int
    private let readers: ReaderPool
    private let condition = NSCondition()
    /// The saves waiting for the next turn, each with its connection's event loop (if any).
    private var saves: [(call: SaveCall, loop: (any EventLoop)?, reply: @Sendable (Reply) -> Void)] = []
    /// The answers of each step of a turn, one task per event loop (used by the writer thread).
    private let answers = AnswerBatch()
    /// Objects readers read from the database after their state missed them, for the writer to
    /// keep (a bounded cache), each batch with the commit of the state the reader had.
    private var admissions: [(snapshots: [ObjectSnapshot], readAt: Int64)] = []
    /// Objects readers found in a bounded cache, for the writer's budget to keep (``CacheHits``).
    private var touched: [[ObjectID]] = []
    /// With a bounded cache: the readers' connections to the database (nil: the states hold every object).
    private var database: DatabaseReads?
    /// With a bounded cache: where readers note their hits.
    private var hits: CacheHits?
    /// With a bounded cache: the reads of the database made on the connections' event loops.
    private var loopReads: LoopReads?
    private var state = State.idle
    /// How long a turn waits for its group of saves to gather (touched by the writer thread only).
    private var gathering: GroupGathering
    private let finished = DispatchSemaphore(value: 0)
    /// How long one fetch may run (nil: no limit); past it the fetch fails with
    /// ``RPCError`` code -32007.
    let requestTimeLimit: Duration?
    /// On a shared database: the commits of every server (a read first catches up with them).
    private let sharedHistory: (any CommitHistoryReader)?
    /// Whether the writer should take the other servers' commits (``requestCatchUp(through:then:)``),
    /// and who waits for it: each waiter with the commit it needs (nil: whatever the history
    /// holds), so that one asking during a catch-up that takes its commit is answered at its
    /// end, not after another one.
    private var catchUpWanted = false
    private var catchUpWaiters: [(through: Int64?, then: @Sendable () -> Void)] = []
    /// Whether a catch-up was asked for without a commit to wait for (a notification, the poll)
    /// since the last one started.
    private var catchUpAskedDuringRun = false
    /// The last commit the notifications and polls that asked for a catch-up since the last one
    /// named, or nil when one named none or a waiter asked: a catch-up asked for only by them is
    /// skipped when the published state already holds that commit (taken meanwhile before a
    /// save of this server, or this server's own commit notified back to it).
    private var catchUpNoticed: Int64? = 0
    private var watcher: DatabaseWatcher?
    /// How long a read with `after` waits for the writer to take that commit from a shared
    /// database (``ServerConfiguration/readAfterWait``).
    private let readAfterWait: Duration
    /// How much lower than the readers' the writer's scheduling priority is (its nice value
    /// above theirs, 0...19; see ``ServerConfiguration/writerNice``).
    private let writerNice: Int

    /// The change feed: subscriptions and the history of recent commits.
    let feed: ChangeFeed

    /// An engine on `graph` (whose ``StoreGraph/maximumAnswerBytes`` is set by now) with
    /// `readerThreads` reader threads (nil: one per core; with a bounded cache, at most
    /// `databaseReads` connections to the database for them, 0: the default), whose feed starts with `history`
    /// (the commits read back from the store, oldest first) and keeps to `feedLimits`; its
    /// writer thread (and the checkpoint threads it starts) runs `writerNice` nice steps
    /// below the readers (0: at their priority).
    init(graph: StoreGraph, requestTimeLimit: Duration? = nil, readerThreads: Int? = nil, databaseReads: Int = 0,
         feedLimits: FeedLimits = FeedLimits(), history: [ChangeSet] = [], writerNice: Int = 0,
         readAfterWait: Duration = ServerConfiguration.defaultReadAfterWait) {
        self.readAfterWait = readAfterWait
        self.writerNice = min(max(writerNice, 0), CurrentThread.lowestNice)
        self.graph = graph
        feed = ChangeFeed(state: graph.state, history: history, limits: feedLimits, cache: graph.cache)
        graph.feed = feed
        publisher = graph.publisher
        cache = graph.cache
        maximumAnswerBytes = graph.maximumAnswerBytes
        self.requestTimeLimit = requestTimeLimit
        // A bounded cache's readers wait for the database on its misses and fetches: more of them.
        let threads = readerThreads ?? ProcessInfo.processInfo.activeProcessorCount * (graph.isCacheBounded ? Self.readersPerCoreWithDatabase : 1)
        readers = ReaderPool(threadCount: threads)
        sharedHistory = graph.sharedHistory
        gathering = GroupGathering(enabled: graph.sharedHistory != nil)
        if graph.isCacheBounded, let shared = graph.store as? any SharedDatabaseStore {
            let connections = databaseReads > 0 ? databaseReads : ProcessInfo.processInfo.activeProcessorCount * ServerConfiguration.defaultDatabaseReadsPerCore
            database = DatabaseReads(limit: connections, makeReader: { try shared.openObjectReader() },
                                     admit: { [weak self] snapshots, readAt in self?.admit(snapshots, readAt: readAt) },
                                     stateHolding: { [weak self] through in self?.stateHolding(through) })
            hits = CacheHits(deliver: { [weak self] ids in self?.touch(ids) })
            let database = self.database
            loopReads = LoopReads(open: { try shared.openFetcher(connections: connections) }, missReads: max(1, connections / 4),
                                  admit: { found, readAt, missed in database?.admitRead(found, readAt: readAt, missed: missed) })
        }
        let condition = self.condition
        graph.checkpoints.onSnapshotWritten {
            condition.lock()
            condition.signal()
            condition.unlock()
        }
    }

    /// Reader threads per core with a bounded cache (each waits for the database on a miss).
    static let readersPerCoreWithDatabase = 32

    /// Has the writer keep objects a reader read from the database after a state at commit
    /// `readAt` missed them (``StoreGraph/admit(_:readAt:)``); returns at once.
    func admit(_ snapshots: [ObjectSnapshot], readAt: Int64) {
        condition.lock()
        defer { condition.unlock() }
        guard state == .running else { return }
        admissions.append((snapshots, readAt))
        condition.signal()
    }

    /// Has the writer's budget keep objects readers found in the cache (``CacheHits``); returns at once.
    func touch(_ ids: [ObjectID]) {
        condition.lock()
        defer { condition.unlock() }
        guard state == .running else {
            hits?.taken(ids.count)
            return
        }
        touched.append(ids)
        condition.signal()
    }

    /// Starts the writer and the readers.
    func start() {
        condition.lock()
        defer { condition.unlock() }
        guard state == .idle else { return }
        state = .running
        readers.start()
        let thread = Thread { [self] in run() }
        thread.name = "docserver writer"
        thread.stackSize = 16 << 20  // deep predicates and cascades recurse
        thread.start()
        if let sharedHistory {
            watcher = DatabaseWatcher(history: sharedHistory, publisher: publisher) { [weak self] in
                self?.requestCatchUp(noticed: $0, then: nil)
            }
            watcher?.start()
        }
    }

    /// Whether a read with `after` can be answered from the latest published state at once:
    /// it names no commit, or one the state holds (else it goes to a reader, which waits).
    func holds(after: Int64?) -> Bool {
        guard let after else { return true }
        return publisher.current.sequence >= after
    }

    /// Has the writer take the other servers' commits from a shared database; `then` runs
    /// once it did, or once the published state holds commit `through` when one is named (or at
    /// once when the engine is not running). `noticed`: the last commit a notification or the
    /// poll saw, when the request is theirs.
    func requestCatchUp(through: Int64? = nil, noticed: Int64? = nil, then: (@Sendable () -> Void)?) {
        condition.lock()
        guard state == .running else {
            condition.unlock()
            then?()
            return
        }
        catchUpWanted = true
        if then == nil, let noticed, let before = catchUpNoticed {
            catchUpNoticed = max(before, noticed)
        } else {
            catchUpNoticed = nil
        }
        if let then { catchUpWaiters.append((through, then)) }
        if then == nil || through == nil { catchUpAskedDuringRun = true }
        condition.signal()
        condition.unlock()
    }

    /// A reader of the latest published state (for reads answered on the caller's thread).
    var reader: StoreReader {
        StoreReader(state: publisher.current, cache: cache, maximumAnswerBytes: maximumAnswerBytes, database: database, hits: hits)
    }

    /// Runs a job: a read on a reader thread, a save on the writer; `completion` gets its
    /// answer there (a save's once it is durable or failed). With a bounded cache, a `fetch`
    /// from a connection on event loop `loop` runs on that loop when one statement answers it,
    /// and so does a `get` that misses objects (``LoopReads``); `completion` then gets its
    /// answer there.
    func submit(_ job: StoreJob, on loop: (any EventLoop)? = nil, completion: @escaping @Sendable (Reply) -> Void) {
        switch job {
        case .fetch(let call):
            let limit = requestTimeLimit
            // The clock starts when the loop or a reader takes the fetch, not while it waits in line.
            if !call.explain, readOnLoop(loop, after: call.after, completion: completion,
                                         onLoop: { reader, reads, catchUp in
                                             let started = call.started(timeLimit: limit)
                                             // A plain equality of a string: with the like fetches of other requests.
                                             if let reply = await reader.fetchReadTogether(started, with: reads.fetches, catchUp: catchUp) { return reply }
                                             return await reader.fetch(started, with: reads.fetcher, catchUp: catchUp)
                                         },
                                         otherwise: { reader in reader.fetch(call.started(timeLimit: limit)) }) { return }
            read(after: call.after, refused: completion) { reader in completion(reader.fetch(call.started(timeLimit: limit))) }
        case .get(let call):
            // With a bounded cache, the objects it misses are read on the connection's event loop.
            if readOnLoop(loop, after: call.after, completion: completion,
                          onLoop: { reader, reads, catchUp in await reader.get(call, with: reads.misses, catchUp: catchUp) },
                          otherwise: { reader in reader.get(call) }) { return }
            read(after: call.after, refused: completion) { reader in completion(reader.get(call)) }
        case .subscribe(let call, let sink):
            afterCatchingUp(refused: completion) { [feed] in feed.subscribe(call, sink: sink, completion: completion) }
        case .unsubscribe(let number, let sink):
            feed.unsubscribe(number, sink: sink, completion: completion)
        case .changes(let call):
            afterCatchingUp(refused: completion) { [feed, maximumAnswerBytes] in
                feed.changes(call, maximumAnswerBytes: maximumAnswerBytes, completion: completion)
            }
        case .backup(let call):
            // A copy of the store's files, on a thread of its own: neither the writer nor a reader waits for it.
            let store = graph.store
            Thread.detachNewThread { [publisher] in completion(call.run(store: store) { publisher.current.sequence }) }
        case .save(let call):
            condition.lock()
            guard state == .running else {
                condition.unlock()
                completion(.error(.storeUnavailable("the server is shutting down")))
                return
            }
            saves.append((call, loop, completion))
            condition.signal()
            condition.unlock()
        }
    }

    /// Runs a job and returns its answer.
    func perform(_ job: StoreJob) async -> Reply {
        await withCheckedContinuation { continuation in
            submit(job) { continuation.resume(returning: $0) }
        }
    }

    /// What event loop `loop` reads the database with, when the server has a bounded cache and a
    /// read with `after` can start at once (nil otherwise).
    func databaseLoop(_ loop: any EventLoop, after: Int64?) -> LoopReads.Loop? {
        guard let loopReads, holds(after: after) else { return nil }
        return try? loopReads.on(loop)
    }

    /// Starts a read on event loop `loop` with its ``LoopReads`` and returns true, when the server
    /// has a bounded cache, a loop was given and the read's `after` is reached (else false: nothing
    /// is started). `onLoop` answers it there, or gives nil when the read needs a reader thread,
    /// where `otherwise` answers it.
    private func readOnLoop(_ loop: (any EventLoop)?, after: Int64?, completion: @escaping @Sendable (Reply) -> Void,
                            onLoop: @escaping @Sendable (StoreReader, LoopReads.Loop, _ catchUp: @escaping @Sendable (Int64) async -> ReadState?) async -> Reply?,
                            otherwise: @escaping @Sendable (StoreReader) -> Reply) -> Bool {
        guard let loop, let reads = databaseLoop(loop, after: after) else { return false }
        let reader = self.reader
        Task(executorPreference: reads.executor) { [self] in
            if let reply = await onLoop(reader, reads, { await self.stateHolding(through: $0) }) { return completion(reply) }
            read(after: after, refused: completion) { reader in completion(otherwise(reader)) }
        }
        return true
    }

    func read(after: Int64?, refused: @escaping @Sendable (Reply) -> Void, _ body: @escaping @Sendable (StoreReader) -> Void) {
        let publisher = self.publisher, cache = self.cache, maximumAnswerBytes = self.maximumAnswerBytes, database = self.database
        let accepted = readers.submit { [self] in
            if let failure = waitForCommit(after) { return refused(.error(failure)) }
            // The state is taken when the read starts: the latest, not the one of when it was queued.
            body(StoreReader(state: publisher.current, cache: cache, maximumAnswerBytes: maximumAnswerBytes, database: database, hits: hits))
        }
        if !accepted { refused(.error(.storeUnavailable("the server is shutting down"))) }
    }

    /// On a reader thread, for a read whose `after` names commit `after`: nil once the published
    /// state holds it, else the error to answer. A read without `after` queries nothing: the
    /// state follows the other servers' commits as their notifications arrive
    /// (``DatabaseWatcher``). With `after`, over a shared database, the writer catches up once
    /// (the database holds every commit any server answered), waiting at most
    /// ``readAfterWait``; a store only this server writes has published every commit it made.
    private func waitForCommit(_ after: Int64?) -> RPCError? {
        guard let after, publisher.current.sequence < after else { return nil }
        guard sharedHistory != nil else {
            return .notCaughtUp(after: after, applied: publisher.current.sequence, reason: "no such commit has been made")
        }
        let done = DispatchSemaphore(value: 0)
        requestCatchUp(through: after) { done.signal() }
        let milliseconds = ServerConfiguration.wholeMilliseconds(readAfterWait)
        let arrived = done.wait(timeout: .now() + .milliseconds(milliseconds)) == .success
        let applied = publisher.current.sequence
        guard applied < after else { return nil }
        return .notCaughtUp(after: after, applied: applied, reason: arrived
            ? "the database holds no such commit, or could not be read (see the server's log)"
            : "the commits of other servers were not taken within \(milliseconds) ms (--read-after-wait-ms); try again")
    }

    /// The published state once the writer has taken the other servers' commits up to `through`
    /// (nil when it could not: the writer answers every waiter after its catch-up), without a
    /// thread waiting.
    func stateHolding(through: Int64) async -> ReadState? {
        if publisher.current.sequence < through {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                requestCatchUp(through: through) { continuation.resume() }
            }
        }
        let current = publisher.current
        return current.sequence >= through ? current : nil
    }

    /// On a reader thread: the published state once it holds commit `through` (the writer takes
    /// the other servers' commits up to it), waiting as a read with `after` does; nil when it did not.
    private func stateHolding(_ through: Int64) -> ReadState? {
        waitForCommit(through) == nil ? publisher.current : nil
    }

    /// Runs `body` at once; on a shared database, on a reader thread once the feed has every
    /// commit the database had (so that `since` may name a commit made through another server).
    private func afterCatchingUp(refused: @escaping @Sendable (Reply) -> Void, _ body: @escaping @Sendable () -> Void) {
        guard sharedHistory != nil else { return body() }
        let accepted = readers.submit { [self] in
            if let failure = catchUpForRead() { return refused(.error(failure)) }
            body()
        }
        if !accepted { refused(.error(.storeUnavailable("the server is shutting down"))) }
    }

    /// On a shared database, on a reader thread: waits until the published state holds every
    /// commit the database had when the read started (so that a read sees every save any
    /// server answered before); the error to answer when it cannot.
    private func catchUpForRead() -> RPCError? {
        guard let sharedHistory else { return nil }
        let latest: Int64
        do {
            latest = try sharedHistory.latestSequence()
        } catch {
            return .storeUnavailable("the database cannot be read: \(error)")
        }
        guard publisher.current.sequence < latest else { return nil }
        let done = DispatchSemaphore(value: 0)
        requestCatchUp(through: latest) { done.signal() }
        done.wait()
        guard publisher.current.sequence >= latest else {
            return .storeUnavailable("the commits of other servers cannot be read from the database (see the server's log)")
        }
        return nil
    }

    /// Finishes every job already queued, refuses new ones, ends the threads and closes the
    /// store (releasing its lock).
    func stop() {
        condition.lock()
        let wasRunning = state == .running
        if state == .running || state == .idle { state = .stopping }
        condition.signal()
        condition.unlock()
        readers.stop()
        watcher?.stop()
        database?.close()
        loopReads?.close()
        if wasRunning { finished.wait() }
        condition.lock()
        let close = state != .stopped
        state = .stopped
        condition.unlock()
        if close { graph.close() }
    }

    private func run() {
        CurrentThread.setName("docserver writer")
        if writerNice > 0, case .failure(let error) = CurrentThread.lowerPriority(by: writerNice) {
            graph.logger.warning("the writer runs at the readers' priority", metadata: ["error": "\(error)"])
        }
        while true {
            condition.lock()
            while saves.isEmpty && admissions.isEmpty && touched.isEmpty && !catchUpWanted && state == .running
                    && !graph.checkpoints.isReadyToFinish {
                condition.wait()
            }
            if !touched.isEmpty {
                let batches = touched
                touched.removeAll(keepingCapacity: true)
                condition.unlock()
                for ids in batches {
                    graph.touch(ids)
                    hits?.taken(ids.count)
                }
                condition.lock()
            }
            if !admissions.isEmpty {
                let kept = admissions
                admissions.removeAll(keepingCapacity: true)
                condition.unlock()
                graph.admit(kept)
                condition.lock()
            }
            if catchUpWanted {
                let waiters = catchUpWaiters.map(\.then)
                let noticed = catchUpNoticed
                catchUpWanted = false
                catchUpWaiters = []
                catchUpAskedDuringRun = false
                catchUpNoticed = 0
                condition.unlock()
                if let noticed, noticed <= publisher.current.sequence {
                    for waiter in waiters { waiter() }
                } else {
                    takeOtherCommits(then: waiters)
                }
                condition.lock()
                // Asked during that catch-up: a waiter whose commit it took is done; the others,
                // and a new notification, have the next one.
                let applied = publisher.current.sequence
                let done = catchUpWaiters.filter { ($0.through ?? .max) <= applied }
                if !done.isEmpty {
                    catchUpWaiters.removeAll { ($0.through ?? .max) <= applied }
                    if catchUpWaiters.isEmpty && !catchUpAskedDuringRun { catchUpWanted = false }
                    condition.unlock()
                    for waiter in done { waiter.then() }
                    condition.lock()
                }
            }
            if saves.isEmpty {
                let running = state == .running
                condition.unlock()
                if running {
                    graph.stepCheckpoint()  // a snapshot was written: finish its checkpoint
                    continue
                }
                break
            }
            if let wait = gathering.wait(whenWaiting: saves.count) {
                // Fewer saves than the last group: the others are likely on their way (GroupGathering).
                let deadline = Date(timeIntervalSinceNow: GroupGathering.seconds(wait.for))
                while saves.count < wait.saves, state == .running, condition.wait(until: deadline) {}
            }
            let turn = saves
            saves.removeAll(keepingCapacity: true)
            condition.unlock()

            let started = ContinuousClock.now
            // Each step's answers go to their connections' loops together (AnswerBatch).
            for (call, loop, reply) in turn {
                answers.gather { graph.stage(call, reply: answers.deferring(reply, on: loop)) }
            }
            answers.gather { graph.commit() }
            gathering.turned(saves: turn.count, took: ContinuousClock.now - started)
            graph.stepCheckpoint()
        }
        condition.lock()
        let waiters = catchUpWaiters
        catchUpWaiters = []
        condition.unlock()
        for waiter in waiters { waiter.then() }  // they find the state as it is, and answer
        finished.signal()
    }

    /// On the writer: takes the other servers' commits, then tells `waiters`.
    private func takeOtherCommits(then waiters: [@Sendable () -> Void]) {
        do {
            try graph.catchUp()
        } catch {
            graph.logFailedCatchUp(error)
        }
        for waiter in waiters { waiter() }
    }
}
