import Testing
@testable import DocumentServer

/// `--read-after-wait-ms` as a duration any library user may set: made whole milliseconds
/// without overflow, never negative, at most `Int32.max`.
struct ReadAfterWaitTests {
    @Test(arguments: [
        (Duration.milliseconds(1500), 1500),
        (Duration.microseconds(2500), 2),
        (Duration.zero, 0),
        (Duration.milliseconds(-5), 0),
        (Duration.microseconds(-500), 0),
        (Duration.seconds(Int64.max), Int(Int32.max)),
        (Duration.seconds(Int64.min), 0),
        (Duration.milliseconds(Int64(Int32.max) + 1), Int(Int32.max)),
    ])
    func aDurationBecomesWholeMillisecondsWithinTheirRange(duration: Duration, milliseconds: Int) {
        var configuration = ServerConfiguration()
        configuration.readAfterWait = duration
        #expect(configuration.readAfterWaitMilliseconds == milliseconds)
    }

    @Test func theMillisecondsSetAreTheWaitRead() {
        var configuration = ServerConfiguration()
        #expect(configuration.readAfterWaitMilliseconds == 1000)
        configuration.readAfterWaitMilliseconds = 250
        #expect(configuration.readAfterWait == .milliseconds(250))
    }
}
