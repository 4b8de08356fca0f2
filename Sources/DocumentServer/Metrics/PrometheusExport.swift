import CoreMetrics
import Foundation
import NIOConcurrencyHelpers
import Prometheus

/// The server's metrics in Prometheus' text format (`GET /metrics`): swift-metrics bootstrapped
/// with swift-prometheus' factory over one registry, and the gauges read from the server when
/// scraped (``ServerStatus``).
///
/// swift-metrics has one factory per process: ``bootstrap()`` sets it once (a second call gets
/// the same export). A process that never calls it (the server without `--http-port`, a test
/// in-process) pays swift-metrics' no-op handlers.
public final class PrometheusExport: Sendable {
    private static let made = NIOLockedValueBox<PrometheusExport?>(nil)

    let registry: PrometheusCollectorRegistry
    private let gauges: Gauges

    private struct Gauges: Sendable {
        let sequence, objects, connections, subscriptions, journalBytes, historyBytes, historyCommits, lag, ready, uptime: CoreMetrics.Gauge

        init() {
            sequence = CoreMetrics.Gauge(label: MetricNames.sequence)
            objects = CoreMetrics.Gauge(label: MetricNames.objects)
            connections = CoreMetrics.Gauge(label: MetricNames.connections)
            subscriptions = CoreMetrics.Gauge(label: MetricNames.subscriptions)
            journalBytes = CoreMetrics.Gauge(label: MetricNames.journalBytes)
            historyBytes = CoreMetrics.Gauge(label: MetricNames.historyBytes)
            historyCommits = CoreMetrics.Gauge(label: MetricNames.historyCommits)
            lag = CoreMetrics.Gauge(label: MetricNames.catchUpLag)
            ready = CoreMetrics.Gauge(label: MetricNames.ready)
            uptime = CoreMetrics.Gauge(label: MetricNames.uptime)
        }
    }

    /// Bootstraps swift-metrics with a Prometheus registry (once per process) and answers the
    /// export over it. Call it before the server is made, so that its meters report here.
    public static func bootstrap() -> PrometheusExport {
        made.withLockedValue { made in
            if let made { return made }
            let registry = PrometheusCollectorRegistry()
            var factory = PrometheusMetricsFactory(registry: registry)
            factory.durationHistogramBuckets = [
                MetricNames.requestDuration: MetricNames.requestBuckets, MetricNames.journalSync: MetricNames.syncBuckets,
                MetricNames.checkpoint: MetricNames.checkpointBuckets,
            ]
            factory.valueHistogramBuckets = [MetricNames.groupCommitSaves: MetricNames.groupBuckets]
            MetricsSystem.bootstrap(factory)
            let export = PrometheusExport(registry: registry)
            made = export
            return export
        }
    }

    private init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        gauges = Gauges()
    }

    /// The text `/metrics` answers: the gauges read from `server` now (none before its store is
    /// open), then every metric of the registry.
    func render(_ server: DocumentServer?) -> [UInt8] {
        gauges.ready.record(0)
        if let figures = server?.status.snapshot() {
            gauges.sequence.record(figures.sequence)
            gauges.objects.record(figures.objects)
            gauges.connections.record(figures.connections)
            gauges.subscriptions.record(figures.subscriptions)
            gauges.historyCommits.record(figures.historyCommits)
            if let bytes = figures.journalBytes { gauges.journalBytes.record(bytes) }
            if let bytes = figures.historyBytes { gauges.historyBytes.record(bytes) }
            if let lag = figures.catchUpLag { gauges.lag.record(lag) }
            gauges.ready.record(figures.unready == nil ? 1 : 0)
            gauges.uptime.record(figures.uptimeSeconds)
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 << 10)
        registry.emit(into: &buffer)
        return buffer
    }
}
