import CoreMetrics
import DocumentProtocol
import Foundation
import JSONCore
import Logging
import Synchronization

/// Times every request of a server: counts it by method and outcome, records its latency in
/// swift-metrics (a counter and a timer per method and outcome, made once: the hot path takes
/// no lock to find them), and keeps one slower than the threshold in the ``SlowLog``, logged.
///
/// Per request: two reads of the monotonic clock, an atomic add for `stats`, and the
/// swift-metrics calls (no-ops unless a metrics backend was bootstrapped).
final class RequestMeter: Sendable {
    /// The methods counted apart, in `ProtocolMethod`'s order, then `other` (a method the
    /// server does not know, or a line that is no request), so that labels stay few.
    static let methods: [String] = ProtocolMethod.allCases.map(\.rawValue) + ["other"]
    private static let slots: [String: Int] = Dictionary(uniqueKeysWithValues: methods.enumerated().map { ($1, $0) })
    /// The slot of a method name.
    static func slot(_ method: String) -> Int { slots[method] ?? methods.count - 1 }
    static let getSlot = slot(ProtocolMethod.get.rawValue)
    static let fetchSlot = slot(ProtocolMethod.fetch.rawValue)
    static let saveSlot = slot(ProtocolMethod.save.rawValue)
    static let otherSlot = methods.count - 1

    private final class Count: Sendable {
        let value = Atomic<Int>(0)
    }

    /// Index: slot * 2 + (0: ok, 1: error).
    private let counters: [Counter]
    private let timers: [CoreMetrics.Timer]
    private let counts: [Count]
    private let slowCounter: Counter
    let slowLog: SlowLog
    private let thresholdNanoseconds: UInt64
    private let logger: Logger

    /// A meter whose requests slower than `slowMilliseconds` go to the slow log (0: every one).
    init(slowMilliseconds: Int, logger: Logger) {
        var counters: [Counter] = []
        var timers: [CoreMetrics.Timer] = []
        for method in Self.methods {
            for outcome in ["ok", "error"] {
                let dimensions = [("method", method), ("outcome", outcome)]
                counters.append(Counter(label: MetricNames.requests, dimensions: dimensions))
                timers.append(CoreMetrics.Timer(label: MetricNames.requestDuration, dimensions: dimensions))
            }
        }
        self.counters = counters
        self.timers = timers
        counts = (0..<counters.count).map { _ in Count() }
        slowCounter = Counter(label: MetricNames.slowRequests)
        slowLog = SlowLog(thresholdMilliseconds: slowMilliseconds)
        // Saturating: a threshold past what nanoseconds can count keeps nothing, never a small one.
        let (nanoseconds, overflow) = UInt64(max(0, slowMilliseconds)).multipliedReportingOverflow(by: 1_000_000)
        thresholdNanoseconds = overflow ? UInt64.max : nanoseconds
        self.logger = logger
    }

    /// Now, for ``record(slot:ok:started:params:)``.
    @inline(__always)
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// A request of method `slot` answered (`ok`: with a result), begun at `started` (``now()``);
    /// `params` gives its parameters, asked only when it was slow.
    func record(slot: Int, ok: Bool, started: UInt64, method: @autoclosure () -> String? = nil, params: () -> JSONValue?) {
        let elapsed = Self.now() &- started
        let index = slot &* 2 &+ (ok ? 0 : 1)
        guard index >= 0, index < counts.count else { return }
        counts[index].value.add(1, ordering: .relaxed)
        counters[index].increment()
        timers[index].recordNanoseconds(Int64(truncatingIfNeeded: elapsed))
        if elapsed >= thresholdNanoseconds {
            slow(name: method() ?? Self.methods[slot], params: params(), nanoseconds: elapsed)
        }
    }

    private func slow(name: String, params: JSONValue?, nanoseconds: UInt64) {
        slowCounter.increment()
        let entry = slowLog.add(method: name, params: params, milliseconds: Double(nanoseconds) / 1e6)
        logger.warning("slow request", metadata: [
            "method": "\(LogText.escaped(entry.method))", "entity": "\(LogText.escaped(entry.entity ?? "-"))",
            "predicate": "\(LogText.escaped(entry.predicate ?? "-"))", "ms": "\(String(format: "%.1f", entry.milliseconds))",
            "thresholdMs": "\(slowLog.thresholdMilliseconds)",
        ])
    }

    /// The requests answered by method: `{"fetch": {"ok": n, "error": m}, ...}`, methods never called left out.
    func countsByMethod() -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        for (slot, method) in Self.methods.enumerated() {
            let ok = counts[slot * 2].value.load(ordering: .relaxed), error = counts[slot * 2 + 1].value.load(ordering: .relaxed)
            guard ok + error > 0 else { continue }
            members.append((method, .object([("ok", .integer(Int64(ok))), ("error", .integer(Int64(error)))])))
        }
        return .object(members)
    }
}

extension Reply {
    /// Whether it is a result (not an error).
    var isResult: Bool {
        if case .result = self { return true }
        return false
    }
}
