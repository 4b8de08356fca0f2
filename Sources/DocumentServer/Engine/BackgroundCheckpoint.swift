import Foundation
import GraphCore
import Logging
import NIOConcurrencyHelpers

/// The checkpoints of a store with a journal (a ``JournaledStore``: the JSON store), off the writer's path.
///
/// When the journal has grown past its threshold, the writer begins a checkpoint (brief: it
/// notes the last commit and the journal's length) and hands the immutable ``ReadState`` of
/// that commit to a thread of its own, which writes the snapshot file while saves go on. Once
/// it is written, the writer finishes the checkpoint (brief again: the journal keeps only the
/// records appended since). One checkpoint at a time; a failed one is logged and given up,
/// losing nothing (the journal still holds every record), and the next commit past the
/// threshold tries again.
final class BackgroundCheckpoint: Sendable {
    private struct Running: Sendable {
        let ticket: SnapshotCheckpoint
        let started: ContinuousClock.Instant
        /// Set by the snapshot thread when it is done.
        let outcome: NIOLockedValueBox<Result<Void, any Error>?>
        let done: DispatchSemaphore
    }

    /// The journal's size, in bytes, past which a commit begins a checkpoint; 0: never while serving.
    let thresholdBytes: Int
    private let logger: Logger
    /// Called from the snapshot thread when the snapshot is written (wakes the writer).
    /// (In a struct: a function value kept directly in the generic box would be rewrapped in
    /// reabstraction thunks on every read through its `inout`, a longer chain each checkpoint.)
    private let wake: NIOLockedValueBox<Wake?> = NIOLockedValueBox(nil)

    private struct Wake: Sendable {
        let call: @Sendable () -> Void
    }
    // Touched by the writer thread only (and by `finishWaiting` after it ended).
    private let running: NIOLockedValueBox<Running?> = NIOLockedValueBox(nil)

    init(thresholdBytes: Int, logger: Logger) {
        self.thresholdBytes = thresholdBytes
        self.logger = logger
    }

    /// What to call when a snapshot has been written, so that the writer finishes it soon.
    func onSnapshotWritten(_ wake: @escaping @Sendable () -> Void) {
        self.wake.withLockedValue { $0 = Wake(call: wake) }
    }

    /// Whether a snapshot has been written and waits for ``step(store:state:)`` to finish it.
    var isReadyToFinish: Bool {
        running.withLockedValue { $0?.outcome.withLockedValue { $0 != nil } ?? false }
    }

    /// On the writer, after a commit or when woken: finishes a checkpoint whose snapshot is
    /// written, then begins one when the journal has passed the threshold. `state` is the
    /// state published after the store's last commit.
    func step(store: any JournaledStore, state: ReadState) {
        if let current = running.withLockedValue({ $0 }) {
            guard current.outcome.withLockedValue({ $0 }) != nil else { return }
            finish(current, store: store)
        }
        guard thresholdBytes > 0, store.journalByteCount >= thresholdBytes else { return }
        begin(store: store, state: state)
    }

    /// On the writer when it stops: waits for a checkpoint under way and finishes it, so that
    /// closing the store (which checkpoints what is left) finds none running.
    func finishWaiting(store: any JournaledStore) {
        guard let current = running.withLockedValue({ $0 }) else { return }
        current.done.wait()
        finish(current, store: store)
    }

    private func begin(store: any JournaledStore, state: ReadState) {
        guard state.sequence == store.commitSequence else { return }  // not the state of the last commit: next time
        let ticket: SnapshotCheckpoint
        do {
            ticket = try store.beginSnapshotCheckpoint()
        } catch {
            logger.warning("checkpoint not begun", metadata: ["error": "\(error)"])
            return
        }
        let current = Running(ticket: ticket, started: .now, outcome: NIOLockedValueBox(nil), done: DispatchSemaphore(value: 0))
        running.withLockedValue { $0 = current }
        let wake = self.wake
        let thread = Thread {
            CurrentThread.setName("docserver ckpt")
            let outcome = Result { try ticket.writeSnapshot(AnySequence(state.objectsByEntity.values.joined())) }
            current.outcome.withLockedValue { $0 = outcome }
            current.done.signal()
            wake.withLockedValue { $0?.call }?()
        }
        thread.name = "docserver checkpoint"
        thread.start()
    }

    private func finish(_ current: Running, store: any JournaledStore) {
        running.withLockedValue { $0 = nil }
        let seconds = Double((ContinuousClock.now - current.started).components.attoseconds) / 1e18
            + Double((ContinuousClock.now - current.started).components.seconds)
        switch current.outcome.withLockedValue({ $0 }) {
        case .success?:
            do {
                try store.finishCheckpoint(current.ticket)
                EngineMeters.shared.checkpointWritten(seconds: seconds)
                logger.info("checkpoint written", metadata: [
                    "seq": "\(current.ticket.commitSequence)", "seconds": "\(String(format: "%.3f", seconds))",
                    "journalBytes": "\(store.journalByteCount)",
                ])
                if let error = store.lastHistoryError {
                    logger.warning("checkpoint written, but its records were not kept in the history file", metadata: [
                        "history": "\(store.historyPath)", "error": "\(error)"])
                }
            } catch {
                logger.warning("checkpoint not finished; the journal keeps every record", metadata: ["error": "\(error)"])
            }
        case .failure(let error)?:
            store.abandonCheckpoint(current.ticket)
            logger.warning("checkpoint failed; the journal keeps every record", metadata: ["error": "\(error)"])
        case nil:
            store.abandonCheckpoint(current.ticket)
        }
    }
}
