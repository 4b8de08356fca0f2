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

    // MARK: - Every split of the input

    /// What a decoder makes of `input` fed in the pieces `cuts` mark: the lines, then the
    /// error if one was thrown (nothing is read after an error).
    private func decode(_ input: [UInt8], cuts: [Int], limit: Int) -> (lines: [[UInt8]], error: LineTooLongError?) {
        var decoder = LineFrameDecoder(maximumLength: limit)
        var buffer = ByteBuffer()
        var lines: [[UInt8]] = []
        var start = 0
        for end in cuts + [input.count] where end >= start {
            buffer.writeBytes(input[start..<end])
            start = end
            do {
                while let line = try decoder.nextLine(&buffer) { lines.append(Array(line.readableBytesView)) }
            } catch let error as LineTooLongError {
                return (lines, error)
            } catch {
                Issue.record("unexpected error \(error)")
                return (lines, nil)
            }
        }
        return (lines, nil)
    }

    /// Inputs around a limit of 4: lines at, under and over it, with `\r\n`, a lone `\r`,
    /// `\r\r\n`, empty lines, and an unfinished last line.
    private static let limit = 4
    private static let inputs: [String] = [
        "abcd\r\n", "abcd\n", "abc\n", "abcde\n", "abcde\r\n", "abcd\r", "abcd\rx\n", "abc\r\r\n", "abcd\r\r\n",
        "\n", "\r\n", "\n\n\r\n", "\r", "\r\r\r\r\n", "\r\r\r\r\r\n", "ab\rc\n", "a\nbcd\r\nabcde\n",
        "ok\r\nabcd\r", "ok\nabcdefgh", "abcd", "abcde", "x\r\ny\n\nz", "abcd\r\nabcd\r\nabcd\r\n",
    ]

    /// The expected outcome, worked out on the whole input at once, by the documented rule.
    private func expected(_ text: String) -> (lines: [[UInt8]], error: LineTooLongError?) {
        var lines: [[UInt8]] = []
        var rest = Array(text.utf8)[...]
        while let newline = rest.firstIndex(of: 0x0A) {
            var line = rest[rest.startIndex..<newline]
            if line.last == 0x0D { line = line.dropLast() }
            if line.count > Self.limit { return (lines, LineTooLongError(limit: Self.limit)) }
            lines.append(Array(line))
            rest = rest[(newline + 1)...]
        }
        let pending = rest.last == 0x0D ? rest.count - 1 : rest.count
        return (lines, pending > Self.limit ? LineTooLongError(limit: Self.limit) : nil)
    }

    @Test("every input gives the same lines and the same error at every split point", arguments: inputs)
    func sameResultAtEverySplit(_ text: String) {
        let input = Array(text.utf8)
        let want = expected(text)
        let whole = decode(input, cuts: [], limit: Self.limit)
        #expect(whole.lines == want.lines && whole.error == want.error, "whole input \(text.debugDescription)")
        for cut in 0...input.count {
            let split = decode(input, cuts: [cut], limit: Self.limit)
            #expect(split.lines == want.lines && split.error == want.error, "\(text.debugDescription) cut at \(cut)")
        }
        for first in 0...input.count {
            for second in first...input.count {
                let split = decode(input, cuts: [first, second], limit: Self.limit)
                #expect(split.lines == want.lines && split.error == want.error,
                        "\(text.debugDescription) cut at \(first) and \(second)")
            }
        }
        let byByte = decode(input, cuts: Array(0..<input.count), limit: Self.limit)
        #expect(byByte.lines == want.lines && byByte.error == want.error, "\(text.debugDescription) byte by byte")
    }

    @Test("\"abcd\\r\" then \"\\n\" passes with a limit of 4, as \"abcd\\r\\n\" in one read does")
    func carriageReturnAtTheEndOfAReadIsNotCountedYet() throws {
        var decoder = LineFrameDecoder(maximumLength: 4)
        var input = buffer("abcd\r")
        #expect(try decoder.nextLine(&input) == nil)
        input.writeString("\n")
        #expect(try decoder.nextLine(&input) == buffer("abcd"))
    }

    @Test("lines at, under and over the limit survive ByteToMessageDecoderVerifier's splits")
    func verifierAtTheLimit() throws {
        try ByteToMessageDecoderVerifier.verifyDecoder(
            inputOutputPairs: [
                (buffer("abcd\r\n"), [buffer("abcd")]),
                (buffer("abcd\n\r\n\n"), [buffer("abcd"), buffer(""), buffer("")]),
                (buffer("ab\rc\r\n"), [buffer("ab\rc")]),
                (buffer("abc\r\r\n"), [buffer("abc\r")]),
                (buffer("\r\r\r\r\n"), [buffer("\r\r\r")]),
            ],
            decoderFactory: { LineFrameDecoder(maximumLength: 4) })
    }

    @Test("a line over the limit is refused by the verifier's decoder whatever the split")
    func verifierRefusesOverTheLimit() {
        #expect(throws: LineTooLongError(limit: 4)) {
            try ByteToMessageDecoderVerifier.verifyDecoder(
                inputOutputPairs: [(buffer("abcde\r\n"), [buffer("abcde")])],
                decoderFactory: { LineFrameDecoder(maximumLength: 4) })
        }
    }
}
