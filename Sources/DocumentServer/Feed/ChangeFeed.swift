import DequeModule
import DocumentProtocol
import Foundation
import GraphCore
import JSONCore

/// The change feed: the history of recent commits (``ChangeSet``s) and the subscriptions of
/// every connection, on a thread of its own.
///
/// The writer hands each commit's change sets over (``publish(_:state:)``) and goes on; the
/// feed thread appends them to the history, judges them for every subscription (entity,
/// live-query predicate on the states before and after), encodes each notification once per
/// kind of filter and hands it to the subscriber's ``SubscriptionSink``. One thread, taking
/// commits in order, keeps commit order for every subscription; a subscription starts on it
/// too, between two commits, so that its history and its live commits meet without a gap or a
/// duplicate.
final class ChangeFeed: @unchecked Sendable {
    // @unchecked: every mutable member below is touched only on `queue`.
    private struct Subscription {
        let filter: FeedFilter
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
    private var subscriptions: [ObjectIdentifier: (sink: SubscriptionSink, open: [Int: Subscription], next: Int)] = [:]

    /// A feed whose history starts with `history` (commits read back from the journal, in
    /// order, the last being `state`'s) after `state`, the state of the store now.
    init(state: ReadState, history loaded: [ChangeSet] = [], limits: FeedLimits) {
        self.limits = limits
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

    // MARK: - From the writer

    /// Takes the change sets of one group commit (in order) and the state after it.
    func publish(_ sets: [ChangeSet], state: ReadState) {
        queue.async { self.take(sets, state: state) }
    }

    private func take(_ sets: [ChangeSet], state: ReadState) {
        latest = state
        for set in sets {
            if let last = history.last?.sequence ?? Optional(oldest), set.sequence != last + 1 {
                history.removeAll()  // a gap (commits without change sets): history starts again
                oldest = set.sequence - 1
            }
            history.append(set)
            dispatch(set)
            if history.count > Self.statesKept {
                let index = history.count - 1 - Self.statesKept
                if history[index].stateAfter != nil { history[index] = history[index].withoutStates() }
            }
        }
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

    /// Hands `set` to every subscription it concerns.
    private func dispatch(_ set: ChangeSet) {
        guard !subscriptions.isEmpty else { return }
        var shared: [String: [UInt8]?] = [:]  // members by sharing key (nil: nothing to send)
        for (_, entry) in subscriptions {
            for (number, subscription) in entry.open {
                let filter = subscription.filter
                let members: [UInt8]?
                if let key = filter.sharingKey, let known = shared[key] {
                    members = known
                } else {
                    members = Self.members(set, filter: filter, latest: latest)
                    if let key = filter.sharingKey { shared[key] = .some(members) }
                }
                guard let members else { continue }
                entry.sink.deliver(number, seq: set.sequence, bytes: FeedRecordWriter.notification(subscription: number, members: members))
            }
        }
    }

    private static func members(_ set: ChangeSet, filter: FeedFilter, latest: ReadState) -> [UInt8]? {
        let record = filter.record(for: set, latest: latest)
        guard !record.isEmpty else { return nil }
        return try? FeedRecordWriter.memberBytes(set, record, filter: filter)
    }

    // MARK: - Requests

    /// `subscribe`: answers `{"subscription","seq"}` through `completion`, then the history
    /// after `since` and the live commits go to `sink`.
    func subscribe(_ call: SubscribeCall, sink: SubscriptionSink, completion: @escaping @Sendable (Reply) -> Void) {
        queue.async {
            let key = ObjectIdentifier(sink)
            var entry = self.subscriptions[key] ?? (sink, [:], 1)
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
            entry.open[number] = Subscription(filter: call.filter)
            self.subscriptions[key] = entry
            sink.start(number, after: start)
            completion(.result(Array(JSONValue.object([(ChangeMembers.subscription, .integer(Int64(number))),
                                                       (ChangeMembers.seq, .integer(start))]).jsonText.utf8)))
            for set in self.history where set.sequence > start {
                guard let members = Self.members(set, filter: call.filter, latest: self.latest) else { continue }
                sink.deliver(number, seq: set.sequence, bytes: FeedRecordWriter.notification(subscription: number, members: members))
            }
        }
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
            let key = ObjectIdentifier(sink)
            guard self.subscriptions[key]?.open.removeValue(forKey: number) != nil else {
                return completion(.error(.noSubscription(number)))
            }
            sink.stop(number)
            completion(.result(Array("true".utf8)))
        }
    }

    /// A subscription that ended by itself (a `resync`).
    func ended(_ number: Int, sink: SubscriptionSink) {
        queue.async { _ = self.subscriptions[ObjectIdentifier(sink)]?.open.removeValue(forKey: number) }
    }

    /// Every subscription of a connection that closed.
    func remove(_ sink: SubscriptionSink) {
        queue.async { self.subscriptions[ObjectIdentifier(sink)] = nil }
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
                let record = call.filter.record(for: set, latest: self.latest)
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
    /// How long a commit stays in the history, in seconds (nil: no limit by age).
    var historyAge: TimeInterval? = TimeInterval(ServerConfiguration.defaultHistorySeconds)
}
