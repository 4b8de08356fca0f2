@testable import DocumentServer
import Logging
import NIOCore
import NIOEmbedded
import Testing

/// The server's small pure helpers and handlers, in memory.
@Suite struct ServerHelperTests {
    @Test func logTextEscapesControlAndInvisibleCharactersAndCapsTheLength() {
        #expect(LogText.escaped("a\nb\r\t\\c\u{1B}[31m\u{7F}\u{200B}\u{2028}é ü") == #"a\nb\r\t\\c\u{1B}[31m\u{7F}\u{200B}\u{2028}é ü"#)
        #expect(LogText.escaped(String(repeating: "x", count: 200)) == String(repeating: "x", count: 128) + "…")
        #expect(LogText.escaped(String(repeating: "x", count: 128)) == String(repeating: "x", count: 128))
    }

    @Test(arguments: ["0", "9.99", "-1.5e-90", "1e127", "12345678901234567890123456789012345678", "1230000000000000000000000000000000000000000",
                      "0.00000000000000000000000000000000000001", "1e-128", "-0.0", "abc", "1e", "1e99999999999999999999"])
    func decimalsThatFitAreAcceptedOrLeftToTheirParser(text: String) {
        if text == "1e99999999999999999999" {
            #expect(DecimalLimits.problem(text) != nil)
        } else {
            #expect(DecimalLimits.problem(text) == nil, "\(text)")
        }
    }

    @Test(arguments: ["123456789012345678901234567890123456789", "1.000000000000000000000000000000000000001", "1e166", "1e-129", "5e-200"])
    func decimalsThatCannotBeKeptExactlyAreRefused(text: String) {
        #expect(DecimalLimits.problem(text) != nil, "\(text)")
    }

    @Test func aPredicateErrorsSubjectIsFoundAsAKeyOutsideQuotes() {
        #expect(PredicatePosition.offset(of: "nme", in: "album.nme == 'x'") == 6)
        #expect(PredicatePosition.offset(of: "colour", in: "title == 'colour' AND colour == 'red'") == 22)
        #expect(PredicatePosition.offset(of: "play", in: "plays > 3") == nil)
        #expect(PredicatePosition.offset(of: "$min", in: "plays > $minimum OR plays < $min") == 28)
        #expect(PredicatePosition.offset(of: "t", in: #"title == "a\"t" AND t == 1"#) == 20)
        #expect(PredicatePosition.offset(of: "ü", in: "é == 1 AND ü == 2") == 11, "in characters")
    }

    @Test func thePartialLineMeterBooksOnlyTheBytesAfterTheLastNewlineAndReleasesThemOnClose() throws {
        let gate = ConnectionGate(maximumConnections: 10, maximumBufferedBytes: 1 << 20, logger: Logger(label: "test"))
        let channel = EmbeddedChannel(handler: PartialLineMeter(gate: gate, logger: Logger(label: "test")))
        try channel.writeInbound(ByteBuffer(string: "abc"))
        #expect(gate.bufferedBytes == 3)
        try channel.writeInbound(ByteBuffer(string: "def\nxy"))
        #expect(gate.bufferedBytes == 2)
        try channel.writeInbound(ByteBuffer(string: "z\n"))
        #expect(gate.bufferedBytes == 0)
        try channel.writeInbound(ByteBuffer(string: "tail"))
        #expect(gate.bufferedBytes == 4)
        _ = try channel.finish()
        #expect(gate.bufferedBytes == 0)
    }

    @Test func theGateRefusesPastItsLimitsAndCountsOnlyWhatItAdmitted() {
        let gate = ConnectionGate(maximumConnections: 2, maximumBufferedBytes: 100, logger: Logger(label: "test"))
        #expect(gate.admitConnection())
        #expect(gate.admitConnection())
        #expect(!gate.admitConnection())
        gate.connectionClosed()
        #expect(gate.admitConnection())
        #expect(gate.adjustBuffered(by: 60))
        #expect(!gate.adjustBuffered(by: 41))
        #expect(gate.adjustBuffered(by: 40))
        #expect(!gate.adjustBuffered(by: Int.max))
        #expect(gate.adjustBuffered(by: -100))
        #expect(gate.bufferedBytes == 0)
    }
}
