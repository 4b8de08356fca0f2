import DocumentProtocol
import NIOConcurrencyHelpers
import NIOCore

/// The answers to the saves of one step of the writer (a save staged, a group committed), handed
/// to each connection's event loop in one task.
///
/// A save's answer goes to the event loop of its connection. Handed over one at a time, every
/// answer was a task of its own, and every task could wake the loop: an `eventfd` write by the
/// writer and a switch to the loop's thread, for each save of a group commit (15 % of the
/// server's samples with 50 clients saving). The writer answers a group's saves together, so
/// they now go together: one task, and at most one wake-up, per loop and step.
///
/// ``gather(_:)`` runs a step and then hands over what was answered meanwhile; an answer given
/// while no step runs goes at once, as before. Nothing waits past the end of its step.
final class AnswerBatch: @unchecked Sendable {
    // @unchecked: `open` and `waiting` only under `lock`.
    private typealias Answer = (completion: @Sendable (Reply) -> Void, reply: Reply)

    private let lock = NIOLock()
    private var open = false
    /// Per event loop (a server has a few), its answers in the order they were given.
    private var waiting: [(loop: any EventLoop, answers: [Answer])] = []

    /// Runs `step`, keeping the answers given meanwhile through ``deferring(_:on:)``, then hands
    /// each loop its answers in one task.
    func gather(_ step: () -> Void) {
        lock.withLock { open = true }
        step()
        let ready = lock.withLock {
            open = false
            defer { waiting.removeAll(keepingCapacity: true) }
            return waiting
        }
        for (loop, answers) in ready {
            loop.execute {
                for answer in answers { answer.completion(answer.reply) }
            }
        }
    }

    /// `completion` (which expects to be called on any thread, and runs on `loop` when called
    /// there), kept for the end of the running step when one runs; without a loop, as it is.
    func deferring(_ completion: @escaping @Sendable (Reply) -> Void, on loop: (any EventLoop)?) -> @Sendable (Reply) -> Void {
        guard let loop else { return completion }
        return { reply in
            let kept = self.lock.withLock {
                guard self.open else { return false }
                if let index = self.waiting.firstIndex(where: { $0.loop === loop }) {
                    self.waiting[index].answers.append((completion, reply))
                } else {
                    self.waiting.append((loop, [(completion, reply)]))
                }
                return true
            }
            if !kept { completion(reply) }
        }
    }
}
