import ArgumentParser
import DocumentServer
import Logging

/// The limits of `docserver serve` (docs/PROTOCOL.md, Limits), in one table: each is an option
/// and an environment variable named after it (`--max-line-bytes`, `DOCSERVER_MAX_LINE_BYTES`),
/// the option winning. swift-argument-parser has no environment variables of its own, so this
/// table is the one place that reads them: a limit added here has its variable, its check and
/// its line in the start-up log, and its help names the variable (``limitHelp(_:option:)``).
extension ServeCommand {
    /// How a limit's value is read, checked and applied.
    enum LimitSetting {
        /// A whole number in `range`, set at `keyPath`.
        case whole(given: Int?, range: ClosedRange<Int>, keyPath: WritableKeyPath<ServerConfiguration, Int>)
        /// Seconds, fractions allowed, in `range`; `apply` sets it.
        case seconds(given: Double?, range: ClosedRange<Double>, apply: @Sendable (inout ServerConfiguration, Double) -> Void)
    }

    /// One limit: its option's name (without `--`) and its setting.
    struct Limit {
        let option: String
        let setting: LimitSetting

        var flag: String { "--" + option }
        var variable: String { ServeCommand.variable(forOption: option) }
    }

    /// `DOCSERVER_` and the option's name in capitals, `-` as `_`.
    static func variable(forOption option: String) -> String {
        "DOCSERVER_" + option.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// A limit option's help: `text`, then the environment variable that stands for it.
    static func limitHelp(_ text: String, option: String, valueName: String) -> ArgumentHelp {
        ArgumentHelp("\(text) [env: \(variable(forOption: option))]", valueName: valueName)
    }

    var limits: [Limit] {
        [
            Limit(option: "max-line-bytes", setting: .whole(given: maxLineBytes, range: 1024...Int.max, keyPath: \.maximumLineLength)),
            Limit(option: "request-time-limit", setting: .seconds(given: requestTimeLimit, range: 0...1_000_000, apply: { configuration, seconds in
                configuration.requestTimeLimit = seconds > 0 ? .milliseconds(Int64((seconds * 1000).rounded(.up))) : nil
            })),
            Limit(option: "max-batch-requests", setting: .whole(given: maxBatchRequests, range: 1...1_000_000, keyPath: \.maximumBatchRequests)),
            Limit(option: "max-answer-bytes", setting: .whole(given: maxAnswerBytes, range: 1024...Int(Int32.max), keyPath: \.maximumAnswerBytes)),
            Limit(option: "max-batch-answer-bytes",
                  setting: .whole(given: maxBatchAnswerBytes, range: 1024...Int(Int32.max), keyPath: \.maximumBatchAnswerBytes)),
            Limit(option: "idle-timeout", setting: .whole(given: idleTimeout, range: 0...31_536_000, keyPath: \.idleTimeoutSeconds)),
            Limit(option: "max-connections", setting: .whole(given: maxConnections, range: 1...1_000_000, keyPath: \.maximumConnections)),
            Limit(option: "max-buffered-bytes", setting: .whole(given: maxBufferedBytes, range: 1024...Int.max, keyPath: \.maximumBufferedBytes)),
            Limit(option: "wire-cache-bytes", setting: .whole(given: wireCacheBytes, range: 0...Int.max, keyPath: \.wireCacheBytes)),
            Limit(option: "cache-bytes", setting: .whole(given: cacheBytes, range: 0...Int.max, keyPath: \.cacheBytes)),
            Limit(option: "database-reads", setting: .whole(given: databaseReads, range: 0...256, keyPath: \.databaseReads)),
            Limit(option: "subscription-buffer-bytes",
                  setting: .whole(given: subscriptionBufferBytes, range: 1024...Int(Int32.max), keyPath: \.subscriptionBufferBytes)),
            Limit(option: "max-subscriptions", setting: .whole(given: maxSubscriptions, range: 1...100_000, keyPath: \.maximumSubscriptions)),
            Limit(option: "history-commits", setting: .whole(given: historyCommits, range: 0...10_000_000, keyPath: \.historyCommits)),
            Limit(option: "history-seconds", setting: .whole(given: historySeconds, range: 0...3_153_600_000, keyPath: \.historySeconds)),
            Limit(option: "slow-request-ms", setting: .whole(given: slowRequestMs, range: 0...86_400_000, keyPath: \.slowRequestMilliseconds)),
            Limit(option: "read-after-wait-ms",
                  setting: .whole(given: readAfterWaitMs, range: 0...600_000, keyPath: \.readAfterWaitMilliseconds)),
        ]
    }

    /// Refuses a limit out of its range, or an environment value that is not a number; the
    /// message names the option or the variable, whichever gave the value.
    func validateLimits() throws {
        for limit in limits { _ = try value(of: limit) }
    }

    /// Sets the limits given as options or in the environment (the others keep their defaults).
    func applyLimits(to configuration: inout ServerConfiguration) throws {
        for limit in limits {
            switch (limit.setting, try value(of: limit)) {
            case (.whole(_, _, let keyPath), .whole(let number)?): configuration[keyPath: keyPath] = number
            case (.seconds(_, _, let apply), .seconds(let seconds)?): apply(&configuration, seconds)
            default: break
            }
        }
    }

    /// The limits in effect, for the start-up log: each option's name and value.
    static func limitsMetadata(_ configuration: ServerConfiguration, _ limits: [Limit]) -> Logger.Metadata {
        var metadata: Logger.Metadata = [:]
        for limit in limits {
            switch limit.setting {
            case .whole(_, _, let keyPath):
                metadata[limit.option] = "\(configuration[keyPath: keyPath])"
            case .seconds:
                let seconds = configuration.requestTimeLimit.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 } ?? 0
                metadata[limit.option] = "\(seconds)"
            }
        }
        return metadata
    }

    private enum LimitValue {
        case whole(Int)
        case seconds(Double)
    }

    /// The limit's value from its option, else from its variable, else nil; checked.
    private func value(of limit: Limit) throws -> LimitValue? {
        let source: String
        switch limit.setting {
        case .whole(let given, let range, _):
            let number: Int
            if let given {
                number = given
                source = limit.flag
            } else if let text = Environment.string(limit.variable) {
                guard let parsed = Int(text) else { throw ValidationError("\(limit.variable) must be a whole number, not '\(text)'") }
                number = parsed
                source = limit.variable
            } else {
                return nil
            }
            guard range.contains(number) else {
                throw ValidationError("\(source) must be from \(range.lowerBound) to \(range.upperBound), not \(number)")
            }
            return .whole(number)
        case .seconds(let given, let range, _):
            let seconds: Double
            if let given {
                seconds = given
                source = limit.flag
            } else if let environment = Environment.string(limit.variable) {
                guard let parsed = Double(environment), parsed.isFinite else {
                    throw ValidationError("\(limit.variable) must be a number of seconds, not '\(environment)'")
                }
                seconds = parsed
                source = limit.variable
            } else {
                return nil
            }
            guard range.contains(seconds) else {
                throw ValidationError("\(source) must be from \(range.lowerBound) to \(range.upperBound) seconds (0: no limit), not \(seconds)")
            }
            return .seconds(seconds)
        }
    }
}
