@testable import DocumentServer
import Testing

/// When the writer waits for a group of saves to gather before it commits (adaptive group
/// commit), and for how long.
@Suite("Group gathering")
struct GroupGatheringTests {
    @Test("a client saving alone never waits")
    func aloneNeverWaits() {
        var gathering = GroupGathering(enabled: true)
        #expect(gathering.wait(whenWaiting: 1) == nil)  // nothing committed yet
        gathering.turned(saves: 1, took: .milliseconds(5))
        #expect(gathering.wait(whenWaiting: 1) == nil)
    }

    @Test("fewer saves than the last group wait for the rest, a share of the last turn at most")
    func waitsForTheRest() throws {
        var gathering = GroupGathering(enabled: true)
        gathering.turned(saves: 50, took: .microseconds(800))
        let wait = try #require(gathering.wait(whenWaiting: 1))
        #expect(wait.saves == 50)
        #expect(wait.for == .microseconds(400))
        // As many as the last group, or more: at once.
        #expect(gathering.wait(whenWaiting: 50) == nil)
        #expect(gathering.wait(whenWaiting: 80) == nil)
    }

    @Test("a long turn does not make a long wait")
    func waitIsBounded() throws {
        var gathering = GroupGathering(enabled: true)
        gathering.turned(saves: 50, took: .seconds(3))  // a slow disk, a checkpoint
        #expect(try #require(gathering.wait(whenWaiting: 10)).for == GroupGathering.longestWait)
    }

    @Test("a group that stays smaller is the one expected after one turn")
    func smallerGroupIsLearned() {
        var gathering = GroupGathering(enabled: true)
        gathering.turned(saves: 50, took: .milliseconds(1))
        #expect(gathering.wait(whenWaiting: 49) != nil)
        gathering.turned(saves: 49, took: .milliseconds(1))  // one client left: the wait ran out
        #expect(gathering.wait(whenWaiting: 49) == nil)
    }

    @Test("a store file's writer never waits")
    func fileNeverWaits() {
        var gathering = GroupGathering(enabled: false)
        gathering.turned(saves: 50, took: .milliseconds(1))
        #expect(gathering.wait(whenWaiting: 1) == nil)
    }

    @Test("durations convert to seconds for a deadline")
    func seconds() {
        #expect(GroupGathering.seconds(.milliseconds(1_500)) == 1.5)
        #expect(GroupGathering.seconds(.microseconds(250)) == 0.00025)
    }
}
