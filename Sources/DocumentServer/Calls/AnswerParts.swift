import DocumentProtocol
import GraphCore
import JSONCore

/// The answer of a `fetch` sent in parts (`stream: true`, `docs/PROTOCOL.md`): the matches'
/// objects (or IDs) gathered as they are found into parts of about ``partBytes``, each sent as
/// a line of its own once full, and the rest in the answer's `result` with the number of every
/// match (`count`). The whole answer may pass `--max-answer-bytes`; no line of it does.
struct AnswerParts {
    /// A part is sent once it holds this many bytes (or fewer: ``init(resultType:lineLimit:)``).
    static let partBytes = 65_536

    let resultType: FetchCall.ResultType
    /// The most bytes one part's text may take (the line's limit less its envelope).
    let lineLimit: Int
    /// The size a part is sent at.
    let target: Int
    /// The part being gathered: `{"objects":[` and the elements so far.
    private var bytes: [UInt8]
    private var elements = 0
    /// Every element added, sent or not.
    private(set) var count = 0

    /// `lineLimit`: the most bytes a part's text may take; parts are sent at ``partBytes``, or
    /// at half the limit when that is less.
    init(resultType: FetchCall.ResultType, lineLimit: Int) {
        self.resultType = resultType
        self.lineLimit = lineLimit
        target = max(1, min(Self.partBytes, lineLimit / 2))
        bytes = Self.opening(resultType)
    }

    /// `{"objects":[` or `{"ids":[`.
    private static func opening(_ resultType: FetchCall.ResultType) -> [UInt8] {
        Array((resultType == .ids ? #"{"ids":["# : #"{"objects":["#).utf8)
    }

    /// Adds one element (an object's wire form, or an ID as a JSON string); returns the text of
    /// the part it completed, to be sent before anything else is added. An element that could
    /// not fit in a line of its own is refused as an answer too large.
    mutating func add(_ element: [UInt8], limit: Int) throws(RPCError) -> [UInt8]? {
        let opening = Self.opening(resultType).count
        // The element alone, in a part of its own, with its closing `]}`.
        guard element.count <= lineLimit - opening - 2 else { throw .tooLarge(.answer, limit: limit) }
        var completed: [UInt8]?
        if elements > 0, bytes.count + 1 + element.count + 2 > target {
            completed = closed()
        }
        if elements > 0 { bytes.append(UInt8(ascii: ",")) }
        bytes += element
        elements += 1
        count += 1
        return completed
    }

    /// The part gathered so far, closed, and a new one begun.
    private mutating func closed() -> [UInt8] {
        var part = bytes
        part += Array("]}".utf8)
        bytes = Self.opening(resultType)
        elements = 0
        return part
    }

    /// The last line's `result`: the rest of the elements, `count`, and `plan` (its JSON text,
    /// with `explain`); and before it, the part to send first when the rest and the plan would
    /// not fit in one line.
    mutating func finish(plan: [UInt8]?) -> (lastPart: [UInt8]?, result: [UInt8]) {
        let tail = Array(#","count":"#.utf8) + Array(String(count).utf8) + (plan.map { Array(#","plan":"#.utf8) + $0 } ?? []) + [UInt8(ascii: "}")]
        var lastPart: [UInt8]?
        if elements > 0, bytes.count + 1 + tail.count > lineLimit { lastPart = closed() }
        var result = bytes
        result.append(UInt8(ascii: "]"))
        result += tail
        return (lastPart, result)
    }
}
