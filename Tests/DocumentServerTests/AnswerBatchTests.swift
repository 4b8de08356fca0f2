import DocumentProtocol
import JSONCore
@testable import DocumentServer
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Testing

/// The answers of a step of the writer go to each event loop once the step is over, in the order
/// they were given; an answer given outside a step, or for no loop, goes at once.
@Suite("Answer batches")
struct AnswerBatchTests {
    /// The numbers of the answers a completion was called with, in order.
    private final class Received: Sendable {
        let numbers = NIOLockedValueBox<[Int]>([])
        func completion() -> @Sendable (Reply) -> Void {
            { reply in
                if case .error(let error) = reply, case .string(let reason)? = error.data["reason"], let number = Int(reason) {
                    self.numbers.withLockedValue { $0.append(number) }
                }
            }
        }
    }

    private func answer(_ number: Int) -> Reply { .error(.storeUnavailable("\(number)")) }

    @Test func answersOfAStepReachEachLoopAfterTheStepInTheirOrder() {
        let batch = AnswerBatch()
        let first = EmbeddedEventLoop(), second = EmbeddedEventLoop()
        let onFirst = Received(), onSecond = Received()
        batch.gather {
            for number in 0..<5 {
                let (loop, received) = number.isMultiple(of: 2) ? (first, onFirst) : (second, onSecond)
                batch.deferring(received.completion(), on: loop)(answer(number))
            }
            #expect(onFirst.numbers.withLockedValue { $0 }.isEmpty)
            #expect(onSecond.numbers.withLockedValue { $0 }.isEmpty)
        }
        // Handed over, not yet run: they run on their loops.
        #expect(onFirst.numbers.withLockedValue { $0 }.isEmpty)
        first.run()
        second.run()
        #expect(onFirst.numbers.withLockedValue { $0 } == [0, 2, 4])
        #expect(onSecond.numbers.withLockedValue { $0 } == [1, 3])
        // The next step starts empty: nothing is handed over twice.
        batch.gather {}
        first.run()
        #expect(onFirst.numbers.withLockedValue { $0 } == [0, 2, 4])
    }

    @Test func anAnswerOutsideAStepOrWithoutALoopGoesAtOnce() {
        let batch = AnswerBatch()
        let loop = EmbeddedEventLoop()
        let received = Received()
        let deferred = batch.deferring(received.completion(), on: loop)
        deferred(answer(1))  // no step runs
        #expect(received.numbers.withLockedValue { $0 } == [1])
        batch.gather {
            batch.deferring(received.completion(), on: nil)(answer(2))
            #expect(received.numbers.withLockedValue { $0 } == [1, 2])
        }
        // A completion made during one step and called after it is not kept.
        deferred(answer(3))
        #expect(received.numbers.withLockedValue { $0 } == [1, 2, 3])
    }
}
