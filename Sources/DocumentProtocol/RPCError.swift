import JSONCore

/// An error as it goes on the wire: a JSON-RPC code, a message for people and `data` for
/// programs (`docs/PROTOCOL.md`, Errors).
///
/// Echoed input is capped, as Redis does, so an error never repeats a huge request back.
public struct RPCError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The JSON-RPC error code.
    public var code: ErrorCode
    /// A sentence saying what was wrong and where.
    public var message: String
    /// Details for programs: an object in every error this project's server sends; `null`
    /// when a peer's error has none (and then left out of the wire form).
    public var data: JSONValue
    /// For a predicate error found after parsing: the key or variable it is about, for
    /// ``PredicatePosition`` to find (not sent).
    package var predicateSubject: String?

    /// An error with its wire parts.
    public init(code: ErrorCode, message: String, data: JSONValue) {
        self.code = code
        self.message = message
        self.data = data
    }

    /// The message and the code.
    public var description: String { "\(message) (\(code))" }

    /// The codes of `docs/PROTOCOL.md`.
    public typealias Code = ErrorCode

    /// At most this many characters of client input are echoed in a message.
    package static let echoLimit = 128

    package static func capped(_ text: String) -> String {
        text.count <= echoLimit ? text : String(text.prefix(echoLimit)) + "…"
    }

    // MARK: - The errors

    package static func parseError(offset: Int, line: Int, column: Int, reason: String) -> RPCError {
        RPCError(code: Code.parseError, message: "invalid JSON at byte \(offset) (line \(line), column \(column)): \(reason)",
                 data: .object([("offset", .integer(Int64(offset))), ("line", .integer(Int64(line))),
                                ("column", .integer(Int64(column))), ("reason", .string(reason))]))
    }

    package static func parseError(reason: String) -> RPCError {
        RPCError(code: Code.parseError, message: "invalid JSON: \(reason)", data: .object([("reason", .string(reason))]))
    }

    package static func invalidRequest(_ reason: String) -> RPCError {
        RPCError(code: Code.invalidRequest, message: "invalid request: \(reason)", data: .object([("reason", .string(reason))]))
    }

    package static func methodNotFound(_ method: String) -> RPCError {
        let echoed = String(method.prefix(echoLimit))
        return RPCError(code: Code.methodNotFound,
                        message: "unknown method '\(capped(method))' (methods: \(ProtocolMethod.list))",
                        data: .object([("method", .string(echoed))]))
    }

    package static func invalidParams(_ path: String, _ reason: String, position: Int? = nil) -> RPCError {
        var data: [(key: String, value: JSONValue)] = [("path", .string(path)), ("reason", .string(reason))]
        if let position { data.append(("position", .integer(Int64(position)))) }
        return RPCError(code: Code.invalidParams, message: "invalid params: \(path): \(reason)", data: .object(data))
    }

    package static func conflict(_ conflicts: [(id: String, expected: Int64, current: Int64?)]) -> RPCError {
        let list = conflicts.map { conflict -> JSONValue in
            .object([("id", .string(conflict.id)), ("expected", .integer(conflict.expected)),
                     ("current", conflict.current.map { JSONValue.integer($0) } ?? .null)])
        }
        let names = conflicts.prefix(5).map { conflict in
            "\(conflict.id) (read at version \(conflict.expected), now " + (conflict.current.map { "at version \($0)" } ?? "deleted") + ")"
        }
        let more = conflicts.count > 5 ? " and \(conflicts.count - 5) more" : ""
        return RPCError(code: Code.conflict,
                        message: "conflict: changed since read: " + names.joined(separator: ", ") + more + "; nothing was saved",
                        data: .object([("conflicts", .array(list))]))
    }

    package static func validation(_ failures: [(id: String, entity: String, key: String, reason: String)]) -> RPCError {
        let list = failures.map { failure -> JSONValue in
            .object([("id", .string(failure.id)), ("entity", .string(failure.entity)),
                     ("key", .string(failure.key)), ("reason", .string(failure.reason))])
        }
        let first = failures.first.map { "\($0.entity).\($0.key) of \($0.id): \($0.reason)" } ?? ""
        let more = failures.count > 1 ? " (and \(failures.count - 1) more)" : ""
        return RPCError(code: Code.validation, message: "validation failed: \(first)\(more); nothing was saved",
                        data: .object([("failures", .array(list))]))
    }

    package static func notFound(_ ids: [String], _ what: String) -> RPCError {
        RPCError(code: Code.notFound, message: "not found: \(what): " + ids.prefix(5).joined(separator: ", ") + "; nothing was saved",
                 data: .object([("ids", .array(ids.map { .string($0) }))]))
    }

    package static func unauthorized(_ reason: String) -> RPCError {
        RPCError(code: Code.unauthorized, message: "unauthorized: \(reason)", data: .object([("reason", .string(reason))]))
    }

    package static func tooLarge(limit: Int) -> RPCError {
        tooLarge(.line, limit: limit)
    }

    /// What a `too large` error is about: its `data.what`.
    package enum TooLarge: String {
        /// A line longer than `--max-line-bytes` (the connection is closed).
        case line
        /// A batch with more requests than `--max-batch-requests`.
        case batch
        /// The answer to one request would be longer than `--max-answer-bytes`.
        case answer
        /// The answers of a batch reached `--max-batch-answer-bytes`.
        case batchAnswer
        /// The server holds `--max-buffered-bytes` of incomplete lines (the connection is closed).
        case bufferedBytes
        /// A connection holds `--max-subscriptions` subscriptions.
        case subscriptions

        package func message(limit: Int) -> String {
            switch self {
            case .line: return "the line is longer than the limit of \(limit) bytes; closing the connection"
            case .batch: return "the batch holds more than \(limit) requests; none of them was run: send them in smaller batches"
            case .answer: return "the answer would be longer than the limit of \(limit) bytes; ask for less (limit and offset, resultType ids, fewer IDs)"
            case .batchAnswer: return "the answers of this batch reached the limit of \(limit) bytes; this request was not run: send it again in another batch"
            case .bufferedBytes: return "the server holds its limit of \(limit) bytes of incomplete lines; closing the connection"
            case .subscriptions: return "this connection holds its limit of \(limit) subscriptions; unsubscribe one first, or subscribe on another connection"
            }
        }
    }

    package static func tooLarge(_ what: TooLarge, limit: Int) -> RPCError {
        RPCError(code: Code.tooLarge, message: what.message(limit: limit),
                 data: .object([("limit", .integer(Int64(limit))), ("what", .string(what.rawValue))]))
    }

    package static func serverBusy(reason: String) -> RPCError {
        RPCError(code: Code.serverBusy, message: "server busy: \(reason); closing this connection, try again later",
                 data: .object([("reason", .string(reason))]))
    }

    package static func serverBusy(limit: Int) -> RPCError {
        RPCError(code: Code.serverBusy, message: "server busy: it has its limit of \(limit) connections open; closing this one, try again later",
                 data: .object([("limit", .integer(Int64(limit)))]))
    }

    package static func timeLimitExceeded(entity: String, limit: Duration?) -> RPCError {
        let seconds = limit.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
        let within = seconds.map { "the request time limit of \($0) s" } ?? "its deadline"
        var data: [(key: String, value: JSONValue)] = [("entity", .string(entity))]
        if let seconds { data.append(("limit", .number(String(seconds)))) }
        return RPCError(code: Code.timeLimitExceeded,
                        message: "time limit exceeded: the fetch of '\(entity)' ran past \(within) and was stopped; nothing was returned (make the predicate cheaper, or ask for less)",
                        data: .object(data))
    }

    package static func storeUnavailable(_ reason: String) -> RPCError {
        RPCError(code: Code.storeUnavailable, message: "store unavailable: \(reason); nothing was saved",
                 data: .object([("reason", .string(reason))]))
    }

    /// `since` is older than the history kept: `oldest` is the oldest `since` still accepted.
    package static func historyExpired(since: Int64, oldest: Int64) -> RPCError {
        RPCError(code: Code.historyExpired,
                 message: "history expired: the server keeps the commits after \(oldest) only, not those after \(since); "
                     + "fetch the objects again, then resume from the seq of that answer",
                 data: .object([("since", .integer(since)), ("oldest", .integer(oldest))]))
    }

    /// A read whose `after` names commit `after`, when this server has applied the commits up to
    /// `applied` only; `reason` says why.
    package static func notCaughtUp(after: Int64, applied: Int64, reason: String) -> RPCError {
        RPCError(code: Code.notCaughtUp,
                 message: "not caught up: this server has applied the commits up to \(applied), not \(after): \(reason); nothing was read",
                 data: .object([("after", .integer(after)), ("applied", .integer(applied))]))
    }

    /// `unsubscribe` of a number that names no open subscription of the connection.
    package static func noSubscription(_ number: Int) -> RPCError {
        RPCError(code: Code.notFound,
                 message: "not found: this connection has no open subscription \(number) (never opened, unsubscribed, or ended by resync)",
                 data: .object([("subscription", .integer(Int64(number)))]))
    }
}
