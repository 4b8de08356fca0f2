import ArgumentParser
import DocumentServer

extension ServeCommand {
    /// A limit: its option's value, else its environment variable's, else nil (the default).
    private struct Limit {
        let option: String
        let variable: String
        let value: Int?
        let range: ClosedRange<Int>
        let keyPath: WritableKeyPath<ServerConfiguration, Int>
    }

    private var limits: [Limit] {
        [
            Limit(option: "--max-batch-requests", variable: "DOCSERVER_MAX_BATCH_REQUESTS", value: maxBatchRequests,
                  range: 1...1_000_000, keyPath: \.maximumBatchRequests),
            Limit(option: "--max-answer-bytes", variable: "DOCSERVER_MAX_ANSWER_BYTES", value: maxAnswerBytes,
                  range: 1024...Int(Int32.max), keyPath: \.maximumAnswerBytes),
            Limit(option: "--max-batch-answer-bytes", variable: "DOCSERVER_MAX_BATCH_ANSWER_BYTES", value: maxBatchAnswerBytes,
                  range: 1024...Int(Int32.max), keyPath: \.maximumBatchAnswerBytes),
            Limit(option: "--idle-timeout", variable: "DOCSERVER_IDLE_TIMEOUT", value: idleTimeout,
                  range: 0...31_536_000, keyPath: \.idleTimeoutSeconds),
            Limit(option: "--max-connections", variable: "DOCSERVER_MAX_CONNECTIONS", value: maxConnections,
                  range: 1...1_000_000, keyPath: \.maximumConnections),
            Limit(option: "--max-buffered-bytes", variable: "DOCSERVER_MAX_BUFFERED_BYTES", value: maxBufferedBytes,
                  range: 1024...Int.max, keyPath: \.maximumBufferedBytes),
            Limit(option: "--wire-cache-bytes", variable: "DOCSERVER_WIRE_CACHE_BYTES", value: wireCacheBytes,
                  range: 0...Int.max, keyPath: \.wireCacheBytes),
            Limit(option: "--subscription-buffer-bytes", variable: "DOCSERVER_SUBSCRIPTION_BUFFER_BYTES", value: subscriptionBufferBytes,
                  range: 1024...Int(Int32.max), keyPath: \.subscriptionBufferBytes),
            Limit(option: "--max-subscriptions", variable: "DOCSERVER_MAX_SUBSCRIPTIONS", value: maxSubscriptions,
                  range: 1...100_000, keyPath: \.maximumSubscriptions),
            Limit(option: "--history-commits", variable: "DOCSERVER_HISTORY_COMMITS", value: historyCommits,
                  range: 0...10_000_000, keyPath: \.historyCommits),
            Limit(option: "--history-seconds", variable: "DOCSERVER_HISTORY_SECONDS", value: historySeconds,
                  range: 0...3_153_600_000, keyPath: \.historySeconds),
        ]
    }

    /// Refuses a limit out of its range, or an environment value that is not a number.
    func validateLimits() throws {
        for limit in limits {
            let value: Int
            if let given = limit.value {
                value = given
            } else if let text = Environment.string(limit.variable) {
                guard let number = Int(text) else { throw ValidationError("\(limit.variable) must be a whole number, not '\(text)'") }
                value = number
            } else {
                continue
            }
            guard limit.range.contains(value) else {
                throw ValidationError("\(limit.option) must be from \(limit.range.lowerBound) to \(limit.range.upperBound), not \(value)")
            }
        }
    }

    /// Sets the limits given as options or in the environment.
    func applyLimits(to configuration: inout ServerConfiguration) {
        for limit in limits {
            if let value = limit.value ?? Environment.int(limit.variable) { configuration[keyPath: limit.keyPath] = value }
        }
    }
}
