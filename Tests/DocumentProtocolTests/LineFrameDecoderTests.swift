@testable import DocumentProtocol
import NIOCore
import NIOTestUtils
import Testing

@Suite("Line framing")
struct LineFrameDecoderTests {
    private func buffer(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    @Test("lines come out whole however the bytes are split, without their \\n or \\r\\n")
    func linesSurviveEverySplit() throws {
        try ByteToMessageDecoderVerifier.verifyDecoder(
            inputOutputPairs: [
                (buffer("{\"a\":1}\n"), [buffer("{\"a\":1}")]),
                (buffer("one\r\ntwo\n\n"), [buffer("one"), buffer("two"), buffer("")]),
                (buffer("x\ny\nz\n"), [buffer("x"), buffer("y"), buffer("z")]),
            ],
            decoderFactory: { LineFrameDecoder(maximumLength: 64) })
    }

    @Test("a line at the limit passes; one byte more is refused before its newline arrives")
    func limitIsExact() throws {
        var decoder = LineFrameDecoder(maximumLength: 8)
        var exact = buffer("12345678\n")
        #expect(try decoder.nextLine(&exact) == buffer("12345678"))

        var tooLong = buffer("123456789")  // no newline yet: refused already
        #expect(throws: LineTooLongError(limit: 8)) { try decoder.nextLine(&tooLong) }
    }

    @Test("the \\r of \\r\\n does not count against the limit")
    func carriageReturnIsFree() throws {
        var decoder = LineFrameDecoder(maximumLength: 4)
        var line = buffer("abcd\r\n")
        #expect(try decoder.nextLine(&line) == buffer("abcd"))
    }

    @Test("a long line fed in small pieces is scanned once: the decoder remembers where it stopped")
    func resumesScanning() throws {
        var decoder = LineFrameDecoder(maximumLength: 1 << 20)
        var input = ByteBuffer()
        for _ in 0..<1000 {
            input.writeString(String(repeating: "a", count: 100))
            #expect(try decoder.nextLine(&input) == nil)
        }
        input.writeString("\n")
        let line = try decoder.nextLine(&input)
        #expect(line?.readableBytes == 100_000)
        #expect(input.readableBytes == 0)
    }
}
