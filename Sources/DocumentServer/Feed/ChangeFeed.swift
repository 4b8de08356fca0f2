import DequeModule
import DocumentProtocol
import Foundation
import GraphCore
import JSONCore
import NIOCore

/// The change feed: the history of recent commits (``ChangeSet``s) and the subscriptions of
/// every connection, on a thread of its own.
///
/// The writer hands each commit's change sets over (``publish(_:state:)``) and goes on; the
/// feed thread appends them to the history, judges them for every subscription (entity,
/// live-query predicate on the states before and after: once per ``FeedFilter/JudgementKey``),
/// encodes each notification once per kind of filter (each object once per commit:
/// ``CommitNotifications``) and hands its line to the subscribers' ``SubscriptionSink``s, one
/// buffer for every subscription of the same number. One thread, taking
/// commits in order, keeps commit order for every subscription; a subscription starts on it
/// too, between two commits, so that its history and its live commits meet without a gap or a
/// duplicate.
final class ChangeFeed: @unchecked Sendable {
    // @unchecked: every mutable member below is touched only on `queue`.
    /// The subscriptions of one kind of filter (equal ``FeedFilter/Key``s): a commit is judged
    /// and encoded once for all of them.
    private struct Group {
        let filter: FeedFilter
        /// The number of its filter's judgement: equal for kinds that differ only in whether
        /// objects carry values, which judge a commit once for all.
        let judging: Int
        var members: [(sink: SubscriptionSink, number: Int)] = []
    }

    /// A connection's open subscriptions (number → kind of filter) and its next number.
    private struct Connection {
        let sink: SubscriptionSink
        var open: [Int: Int] = [:]
        var next = 1
    }

    private let queue = DispatchQueue(label: "docserver.feed")
    let limits: FeedLimits
    private var history: Deque<ChangeSet> = []
    /// The newest commits of the history that keep their states before and after (for live
    /// queries' key paths through relationships when replayed with `since`); older ones
    /// judge such key paths on the latest state, so that the history does not keep every
    /// state's objects alive.
    static let statesKept = 256
    /// The state after the last commit the feed took.
    private var latest: ReadState
    /// The oldest `since` accepted: commits after it are all in ``history``.
    private var oldest: Int64
    /// A number for each kind of filter seen, and the next number.
    private var kinds: [FeedFilter.Key: Int] = [:]
    private var nextKind = 0
    /// A number for each judgement seen, and the next number.
    private var judgings: [FeedFilter.JudgementKey: Int] = [:]
    private var nextJudging = 0
    /// Where notifications take objects' wire forms from, and leave those they encode.
    private let cache: WireObjectCache?
    private var connections: [ObjectIdentifier: Connection] = [:]
    private var groups: [Int: Group] = [:]

    /// A feed whose history starts with `history` (commits read back from the journal, in
    /// order, the last being `state`'s) after `state`, the state of the store now; `cache`
    /// holds the wire forms of objects (nil: notifications encode every object).
    init(state: ReadState, history loaded: [ChangeSet] = [], limits: FeedLimits, cache: WireObjectCache? = nil) {
        self.limits = limits
        self.cache = cache
        latest = state
        oldest = state.sequence
        var expected = state.sequence
        var kept: [ChangeSet] = []
        // Only the run of commits that ends at the state's, without a gap, is history.
        for set in loaded.reversed() where set.sequence == expected && expected > 0 {
            kept.append(set)
            expected -= 1
        }
        history = Deque(kept.reversed())
        oldest = expected
        trim(now: Date())
    }

    /// The open subscriptions and the commits the history holds, for `stats` and `/metrics`.
    var counts: (subscriptions: Int, historyCommits: Int) {
        queue.sync { (connections.values.reduce(0) { $0 + $1.open.count }, history.count) }
    }

    // MARK: - From the writer

    /// Takes the change sets of one group commit (in order) and the state after it.
    func publish(_ sets: [ChangeSet], state: ReadState) {
        queue.async { self.take(sets, state: state) }
    }

    private func take(_ sets: [ChangeSet], state: ReadState) {
        latest = state
        var outbox = FeedOutbox()
        for set in sets {
            if let last = history.last?.sequence ?? Optional(oldest), set.sequence != last + 1 {
                history.removeAll()  // a gap (commits without change sets): history starts again
                oldest = set.sequence - 1
            }
            history.append(set)
            dispatch(set, into: &outbox)
            if history.count > Self.statesKept {
                let index = history.count - 1 - Self.statesKept
                if history[index].states != nil { history[index] = history[index].withoutStates() }
            }
        }
        outbox.send()
        if sets.isEmpty, history.isEmpty { oldest = state.sequence }
        trim(now: Date())
    }

    /// Drops commits past the retention, by count and by age.
    private func trim(now: Date) {
        let cutoff = limits.historyAge.map { now.addingTimeInterval(-$0) }
        while let first = history.first,
              history.count > limits.historyCommits || cutoff.map({ first.timestamp < $0 }) ?? false {
            history.removeFirst()
            oldest = first.sequence
        }
    }

    /// Puts the notifications of `set` for every subscription it concerns in `outbox` (sent
    /// once for the group commit: one task per event loop, not one per subscriber).
    private func dispatch(_ set: ChangeSet, into outbox: inout FeedOutbox) {
        // Each judgement once, for every kind that shares it; each object encoded once.
        var judged: [Int: Result<FeedFilter.Record, FeedFilter.TooSlow>] = [:]
        var notifications: CommitNotifications?
        for (kind, group) in groups {
            // Nothing of its entity changed: nothing to judge (a predicate is not run on other
            // entities' objects either, so no time limit can be passed).
            if let entity = group.filter.entity, !set.changes(anyOf: entity) { continue }
            let judgement: Result<FeedFilter.Record, FeedFilter.TooSlow>
            if let known = judged[group.judging] {
                judgement = known
            } else {
                judgement = Result { () throws(FeedFilter.TooSlow) in
                    try group.filter.record(for: set, latest: latest, timeLimit: limits.predicateTimeLimit)
                }
                judged[group.judging] = judgement
            }
            guard case .success(let record) = judgement else {
                outbox.send()  // the notifications of earlier commits go before the resync
                for (sink, number) in group.members { endTooSlow(number, of: sink, at: set.sequence) }
                groups[kind] = nil
                continue
            }
            guard !record.isEmpty else { continue }
            let encoder = notifications ?? CommitNotifications(set, cache: cache)
            notifications = encoder
            guard let members = try? encoder.members(record, filter: group.filter) else { continue }
            // One line for each subscription number: most connections' subscriptions have the same few.
            var lines: [Int: ByteBuffer] = [:]
            for (sink, number) in group.members {
                let line: ByteBuffer
                if let made = lines[number] {
                    line = made
                } else {
                    line = FeedRecordWriter.notificationLine(subscription: number, members: members)
                    lines[number] = line
                }
                outbox.add(line, number: number, of: sink, seq: set.sequence)
            }
        }
    }

    /// Ends a live query whose predicate took too long on commit `seq` with `resync`.
    private func endTooSlow(_ number: Int, of sink: SubscriptionSink, at seq: Int64) {
        _ = connections[ObjectIdentifier(sink)]?.open.removeValue(forKey: number)
        let limit = limits.predicateTimeLimit.map { "\($0.components.seconds) s" } ?? "its limit"
        sink.resync(number, reason: "the live query's predicate ran past the time limit (\(limit)) judging commit \(seq); "
                    + "the subscription ended: use a cheaper predicate, or fetch again and subscribe without it")
    }

    // MARK: - Requests

    /// `subscribe`: answers `{"subscription","seq"}` through `completion`, then the history
    /// after `since` and the live commits go to `sink`.
    func subscribe(_ call: SubscribeCall, sink: SubscriptionSink, completion: @escaping @Sendable (Reply) -> Void) {
        queue.async {
            let key = ObjectIdentifier(sink)
            var entry = self.connections[key] ?? Connection(sink: sink)
            guard entry.open.count < self.limits.subscriptionsPerConnection else {
                return completion(.error(.tooLarge(.subscriptions, limit: self.limits.subscriptionsPerConnection)))
            }
            let start: Int64
            do throws(RPCError) {
                start = try self.checkSince(call.since)
            } catch {
                return completion(.error(error))
            }
            let number = entry.next
            entry.next += 1
            let kind = self.kind(of: call.filter.key)
            entry.open[number] = kind
            self.connections[key] = entry
            if self.groups[kind] == nil {
                self.groups[kind] = Group(filter: call.filter, judging: self.judging(of: call.filter.judgementKey))
            }
            self.groups[kind]?.members.append((sink, number))
            sink.start(number, after: start)
            completion(.result(Array(JSONValue.object([(ChangeMembers.subscription, .integer(Int64(number))),
                                                       (ChangeMembers.seq, .integer(start))]).jsonText.utf8)))
            for set in self.history where set.sequence > start {
                let record: FeedFilter.Record
                do {
                    record = try call.filter.record(for: set, latest: self.latest, timeLimit: self.limits.predicateTimeLimit)
                } catch {
                    _ = self.close(number, of: sink)
                    self.endTooSlow(number, of: sink, at: set.sequence)
                    return
                }
                // Without the wire cache: it keeps the objects' latest forms, not a past commit's.
                guard !record.isEmpty, let members = try? CommitNotifications(set, cache: nil).members(record, filter: call.filter) else {
                    continue
                }
                sink.deliver(number, seq: set.sequence, line: FeedRecordWriter.notificationLine(subscription: number, members: members))
            }
        }
    }

    /// The number of a kind of filter: the same for equal filters, so that a commit is judged
    /// and encoded once for all their subscriptions. The table is emptied past 4,096 kinds (a
    /// number is never given twice, so that only sharing is lost).
    private func kind(of key: FeedFilter.Key) -> Int {
        if let known = kinds[key] { return known }
        if kinds.count >= 4096 { kinds.removeAll() }
        nextKind += 1
        kinds[key] = nextKind
        return nextKind
    }

    /// The number of a judgement: the same for filters with equal judgement keys, so that a
    /// commit is judged once for all their kinds. Emptied past 4,096 as ``kind(of:)``'s table.
    private func judging(of key: FeedFilter.JudgementKey) -> Int {
        if let known = judgings[key] { return known }
        if judgings.count >= 4096 { judgings.removeAll() }
        nextJudging += 1
        judgings[key] = nextJudging
        return nextJudging
    }

    /// The `seq` a subscription or a pull starts after: `since`, or the latest commit.
    private func checkSince(_ since: Int64?) throws(RPCError) -> Int64 {
        guard let since else { return latest.sequence }
        guard since <= latest.sequence else {
            throw .invalidParams("params.since", "is \(since), above the latest commit \(latest.sequence)")
        }
        guard since >= oldest else { throw .historyExpired(since: since, oldest: oldest) }
        return since
    }

    /// `unsubscribe`: true, or -32003 for a number that names no open subscription of `sink`'s.
    func unsubscribe(_ number: Int, sink: SubscriptionSink, completion: @escaping @Sendable (Reply) -> Void) {
        queue.async {
            guard self.close(number, of: sink) else { return completion(.error(.noSubscription(number))) }
            sink.stop(number)
            completion(.result(Array("true".utf8)))
        }
    }

    /// A subscription that ended by itself (a `resync`).
    func ended(_ number: Int, sink: SubscriptionSink) {
        queue.async { _ = self.close(number, of: sink) }
    }

    /// Every subscription of a connection that closed.
    func remove(_ sink: SubscriptionSink) {
        queue.async {
            guard let entry = self.connections.removeValue(forKey: ObjectIdentifier(sink)) else { return }
            for (number, kind) in entry.open { self.leave(kind, sink: sink, number: number) }
        }
    }

    /// Closes subscription `number` of `sink`'s connection; false when it is not open.
    private func close(_ number: Int, of sink: SubscriptionSink) -> Bool {
        guard let kind = connections[ObjectIdentifier(sink)]?.open.removeValue(forKey: number) else { return false }
        leave(kind, sink: sink, number: number)
        return true
    }

    private func leave(_ kind: Int, sink: SubscriptionSink, number: Int) {
        groups[kind]?.members.removeAll { $0.sink === sink && $0.number == number }
        if groups[kind]?.members.isEmpty == true { groups[kind] = nil }
    }

    /// `changes`: the records after `since`, at most `limit`.
    func changes(_ call: ChangesCall, maximumAnswerBytes: Int, completion: @escaping @Sendable (Reply) -> Void) {
        queue.async {
            let start: Int64
            do throws(RPCError) {
                start = try self.checkSince(call.since)
            } catch {
                return completion(.error(error))
            }
            var found: [(ChangeSet, FeedFilter.Record)] = []
            var examined = start
            for set in self.history where set.sequence > start {
                if found.count == call.limit { break }
                examined = set.sequence
                let record = (try? call.filter.record(for: set, latest: self.latest)) ?? FeedFilter.Record()
                if call.filter.entity == nil || !record.isEmpty { found.append((set, record)) }
            }
            let more = examined < self.latest.sequence
            completion(.result { out in
                try out.openObject()
                try out.string(ChangeMembers.changes)
                try out.openArray()
                for (set, record) in found {
                    try FeedRecordWriter.record(set, record, includeValues: call.filter.includeValues, to: out)
                    if out.bufferedCount > maximumAnswerBytes { throw AnswerTooLarge(limit: maximumAnswerBytes) }
                }
                try out.closeArray()
                try out.string(ChangeMembers.seq)
                try out.integer(examined)
                try out.string(ChangeMembers.more)
                try out.bool(more)
                try out.closeObject()
            })
        }
    }

    /// Waits until the feed took everything handed to it so far (for tests and shutdown).
    func sync() {
        queue.sync {}
    }
}

/// The feed's limits (`docserver serve` options; `docs/PROTOCOL.md`, Live changes).
struct FeedLimits: Sendable {
    /// The bytes one subscription may have waiting for its client before it gets `resync`.
    var subscriptionBufferBytes = ServerConfiguration.defaultSubscriptionBufferBytes
    /// The most subscriptions open on one connection.
    var subscriptionsPerConnection = ServerConfiguration.defaultMaximumSubscriptions
    /// The most commits kept in the history.
    var historyCommits = ServerConfiguration.defaultHistoryCommits
    /// How long a live query may take to judge one commit (nil: no limit); past it the
    /// subscription ends with `resync`.
    var predicateTimeLimit: Duration? = ServerConfiguration.defaultRequestTimeLimit
    /// How long a commit stays in the history, in seconds (nil: no limit by age).
    var historyAge: TimeInterval? = TimeInterval(ServerConfiguration.defaultHistorySeconds)
}
