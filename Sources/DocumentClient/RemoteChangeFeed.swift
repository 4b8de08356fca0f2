import GraphCore
import NIOConcurrencyHelpers

/// A ``RemoteStore``'s subscription to every commit of its server: it tells the store's
/// coordinator of other processes' commits (so that contexts merge them) and keeps them for
/// the store, which applies them to its rows at its next call.
///
/// The store's own saves come back through the subscription too; they are recognised by
/// their commit numbers and skipped. A commit that arrives while a save of the store is in
/// flight waits until the save's answer (with its number) is in.
///
/// A lost connection or a `resync` subscribes again from the last commit received, after a
/// pause that doubles up to 5 s; a history that no longer reaches that far tells the
/// coordinator that changes were missed, and the feed goes on from the oldest commit the
/// history still holds.
final class RemoteChangeFeed: Sendable {
    private struct State {
        /// Commits not yet applied to the store's rows, in order.
        var pending: [ChangeNotification] = []
        /// More commits came than ``pendingLimit`` before the store was called: every row is stale.
        var overflowed = false
        /// Commits that came while a save was in flight, in order.
        var held: [ChangeNotification] = []
        /// The numbers of the store's own commits not yet seen on the feed.
        var own: Set<Int64> = []
        var savesInFlight = 0
        var lastSeq: Int64?
        var task: Task<Void, Never>?
        var stopped = false
    }

    private let state: NIOLockedValueBox<State>
    private let client: DocumentClient
    private let model: ObjectModel
    private weak let coordinator: StoreCoordinator?

    init(client: DocumentClient, model: ObjectModel, coordinator: StoreCoordinator?, since: Int64?) {
        self.client = client
        self.model = model
        self.coordinator = coordinator
        var initial = State()
        initial.lastSeq = since
        state = NIOLockedValueBox(initial)
    }

    /// Starts following the server's commits.
    func start() {
        let task = Task { [self] in await run() }
        let stopped = state.withLockedValue { state -> Bool in
            if !state.stopped { state.task = task }
            return state.stopped
        }
        if stopped { task.cancel() }
    }

    /// Stops following (the store is removed or gone).
    func stop() {
        let task = state.withLockedValue { state -> Task<Void, Never>? in
            state.stopped = true
            defer { state.task = nil }
            return state.task
        }
        task?.cancel()
    }

    private func run() async {
        var pause: Duration = .milliseconds(50)
        while !Task.isCancelled {
            let since = state.withLockedValue { $0.lastSeq }
            do {
                for try await change in client.changes(since: since, model: model) {
                    pause = .milliseconds(50)
                    receive(change)
                }
                return  // cancelled, or the client shut down
            } catch DocumentClientError.shutDown {
                return
            } catch DocumentClientError.server(let error) where error.code == .invalidParams && since != nil {
                // A `since` past the server's latest commit: its store is not the one followed
                // (restored from a copy). Everything may have changed; follow from now on.
                state.withLockedValue { state in
                    state.lastSeq = nil
                    state.pending = []
                    state.overflowed = true
                }
                coordinator?.postRemoteChangesMissed()
            } catch DocumentClientError.server(let error) where error.code == .methodNotFound || error.code == .invalidParams {
                return  // a server without live changes: there is nothing to follow
            } catch DocumentClientError.historyExpired(_, let oldest, _) {
                // Commits up to `oldest` were missed: the rows go, contexts read everything
                // again, and the feed goes on from `oldest`, which the history still holds
                // (so nothing after the refresh is missed either).
                state.withLockedValue { state in
                    state.lastSeq = oldest
                    state.pending = []
                    state.overflowed = true
                }
                coordinator?.postRemoteChangesMissed()
            } catch {
                // A lost connection, a resync, a server that is restarting: try again from the
                // last commit received.
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(5))
            }
        }
    }

    private func receive(_ change: ChangeNotification) {
        let release = state.withLockedValue { state -> ChangeNotification? in
            state.lastSeq = change.seq
            if state.savesInFlight > 0 {
                state.held.append(change)
                return nil
            }
            return Self.admit(change, into: &state)
        }
        if let release { post([release]) }
    }

    /// Keeps a commit for the store unless it is the store's own; returns it when it is to
    /// be posted.
    private static func admit(_ change: ChangeNotification, into state: inout State) -> ChangeNotification? {
        if state.own.remove(change.seq) != nil { return nil }
        // Commits come in order: an own number below this one will never be seen.
        if !state.own.isEmpty { state.own = state.own.filter { $0 > change.seq } }
        if state.pending.count >= Self.pendingLimit {
            state.pending = []
            state.overflowed = true
        } else if !state.overflowed {
            state.pending.append(change)
        }
        return change
    }

    private func post(_ changes: [ChangeNotification]) {
        guard let coordinator else { return }
        for change in changes { coordinator.postRemoteChange(change.contextDidSave) }
    }

    /// A save of the store is about to be sent.
    func saveWillStart() {
        state.withLockedValue { $0.savesInFlight += 1 }
    }

    /// A save of the store ended, made as commit `seq` (nil when it failed or its answer was lost).
    func saveDidEnd(seq: Int64?) {
        let released = state.withLockedValue { state -> [ChangeNotification] in
            state.savesInFlight -= 1
            if let seq { state.own.insert(seq) }
            guard state.savesInFlight == 0, !state.held.isEmpty else { return [] }
            let held = state.held
            state.held = []
            return held.compactMap { Self.admit($0, into: &state) }
        }
        post(released)
    }

    /// How many commits are kept for the store between two of its calls; past it, the store
    /// forgets every row instead.
    static let pendingLimit = 10_000

    /// The commits received since the last call, in order, for the store's rows; nil when
    /// there were too many to keep: then every row is stale.
    func take() -> [ChangeNotification]? {
        state.withLockedValue { state in
            defer {
                state.pending = []
                state.overflowed = false
            }
            return state.overflowed ? nil : state.pending
        }
    }
}
