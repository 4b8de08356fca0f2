import BenchmarkSupport
import Foundation
import GraphCore
import JSONAtomicStore
import NIOSSL

/// `get` of one object by ID with 50 connections over the line protocol's three transports:
/// plain TCP, TLS (`--tls-cert`/`--tls-key`, a certificate made for the run with `openssl req
/// -x509`, verified by the client) and the HTTP port's `/rpc` WebSocket (one JSON-RPC message
/// per text frame). Issue 41's target: TLS ≥ 0.85× TCP; issue 42's: WebSocket ≥ 0.7× TCP.
///
/// One release binary, one 100,000-object store; each variant on a fresh server started with
/// `--http-port` (so that the three run with the same metrics), every object touched through
/// the variant's own transport first (warm), then the load of every server figure
/// (``TransportLoad``, SwiftNIO, closed loop). The variants alternate over the rounds (TCP, TLS,
/// WebSocket; TLS, WebSocket, TCP; …); the ratios are of the medians over the rounds, beside the
/// server's CPU per `get` (steadier than the rate when other processes share the cores).
///
///     swift run -c release --package-path Benchmarks ServerBenchmarks --transports [--transport-rounds N] [--docserver PATH]
extension ServerBenchmark {
    private struct TransportVariant {
        let label: String
        let arguments: [String]
        let transport: (_ tcpPort: Int, _ httpPort: Int) -> Transport
    }

    func runTransports() async throws {
        say("Server benchmark --transports (release build), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(Date())")
        let busyBefore = ProcessCPU.machineBusySeconds()
        usleep(1_000_000)
        let load = Self.loadAverage()
        say("machine before the run: \(fixed(ProcessCPU.machineBusySeconds() - busyBefore, 2)) cores busy (1 s sample), load average \(load)")
        JSONAtomicStore.register()
        let store = try sampleStore(objects: 100_000)
        binary = try locateDocserver()
        say("docserver: \(binary) (built \(DocServerBinary.modified(binary)))")
        let (certificate, key) = try makeCertificate()
        var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
        tlsConfiguration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificate))  // verified, not trusted blindly
        tlsConfiguration.minimumTLSVersion = .tlsv12
        let tlsContext = try NIOSSLContext(configuration: tlsConfiguration)
        say("TLS: a self-signed ECDSA P-256 certificate for localhost and 127.0.0.1, made by openssl for this run;"
            + " the client verifies it (its only trust root) and the name localhost")

        let ids = try storeIDs(store)
        say("\(grouped(ids.count)) IDs; each `get` names one, the pool shuffled and shared by the connections")
        let variants = [
            TransportVariant(label: "TCP", arguments: []) { tcp, _ in .tcp(port: tcp) },
            TransportVariant(label: "TLS", arguments: ["--tls-cert", certificate, "--tls-key", key]) { tcp, _ in
                .tls(port: tcp, context: tlsContext, serverHostname: "localhost")
            },
            TransportVariant(label: "WebSocket /rpc", arguments: []) { _, http in .webSocket(port: http) },
        ]
        let rounds = options.transportRounds ?? (options.quick ? 1 : 3)
        say("\(rounds) round(s), variants alternating; each figure \(options.warmup.nanoseconds / 1_000_000) ms warm-up"
            + " + \(options.duration.nanoseconds / 1_000_000) ms measured, 50 connections")
        var results: [[(Measurement, CPUShare)]] = Array(repeating: [], count: variants.count)
        for round in 1...rounds {
            let order = (0..<variants.count).map { ($0 + round - 1) % variants.count }
            for index in order {
                let figure = try await transportRound(variants[index], store: store, ids: ids)
                let (m, cpu) = figure
                say("round \(round), \(variants[index].label): \(grouped(Int(m.requestsPerSecond.rounded()))) req/s,"
                    + " p50 \(fixed(m.p50, 3)) ms, p99 \(fixed(m.p99, 3)) ms; server CPU per get \(fixed(cpu.server / m.requestsPerSecond * 1e6, 1)) µs;"
                    + " \(cpu.describe(server: "docserver", client: "load client"))"
                    + (m.errors + m.warmupErrors > 0 ? "; WITH ERRORS: \(m.errors) (+\(m.warmupErrors) in the warm-up), first: \(m.firstError ?? "?")" : ""))
                results[index].append(figure)
            }
        }
        say()
        say("Summary: `get` by ID, 50 connections, warm, medians over \(rounds) round(s) [\(store.label)]")
        let rates = results.map { median($0.map(\.0.requestsPerSecond)) }
        let cpus = results.map { median($0.map { $0.1.server / $0.0.requestsPerSecond * 1e6 }) }
        for (index, variant) in variants.enumerated() {
            let rounds = results[index].map { grouped(Int($0.0.requestsPerSecond.rounded())) }.joined(separator: " / ")
            say("  \(variant.label): \(grouped(Int(rates[index].rounded()))) req/s (rounds \(rounds)),"
                + " p50 \(fixed(median(results[index].map(\.0.p50)), 3)) ms, p99 \(fixed(median(results[index].map(\.0.p99)), 3)) ms,"
                + " server CPU per get \(fixed(cpus[index], 1)) µs")
        }
        let errors = results.joined().contains { $0.0.errors + $0.0.warmupErrors > 0 || $0.0.answers == 0 }
        let data = "\(grouped(store.shape.total)) objects, 50 connections, \(rounds) rounds"
        for (index, target, issue) in [(1, 0.85, "issue 41"), (2, 0.7, "issue 42")] {
            let ratio = rates[index] / rates[0]
            let met = ratio >= target && !errors
            say("  \(variants[index].label) / TCP: \(fixed(ratio, 3)) x (target ≥ \(target), \(issue)) -> \(met ? "MET" : "NOT MET")"
                + "; server CPU per get \(fixed(cpus[index] / cpus[0], 2)) x TCP's")
            recordFigure("`get` over \(variants[index].label) against TCP", data: data,
                         result: "\(fixed(ratio, 2))× (\(grouped(Int(rates[index].rounded()))) req/s, TCP \(grouped(Int(rates[0].rounded()))) req/s);"
                             + " server CPU per get \(fixed(cpus[index], 1)) µs, TCP \(fixed(cpus[0], 1)) µs; p99 \(fixed(median(results[index].map(\.0.p99)), 2)) ms;"
                             + " target ≥ \(target)\(met ? "" : errors ? ": WITH ERRORS" : ": MISSED")")
        }
        say()
    }

    /// The IDs of every object of the store, read from a plain server on it.
    private func storeIDs(_ store: BenchmarkStore) throws -> [String] {
        let server = try DocServer(binary: binary, model: modelURL, store: store.url,
                                   log: directory.appendingPathComponent("docserver-transports-ids.log"))
        let session = try ServerSession(server: server)
        var ids: [String] = []
        for entity in ["Artist", "Album", "Song", "Tag"] { ids += try session.ids(of: entity) }
        _ = server.stop()
        return ids
    }

    /// One variant on a fresh server: every object touched through the variant's transport,
    /// then `get` with 50 connections.
    private func transportRound(_ variant: TransportVariant, store: BenchmarkStore, ids: [String]) async throws -> (Measurement, CPUShare) {
        let httpPort = try freePort()
        let server = try DocServer(binary: binary, model: modelURL, store: store.url,
                                   log: directory.appendingPathComponent("docserver-transports-\(MonotonicClock.nanoseconds()).log"),
                                   arguments: variant.arguments + ["--http-port", "\(httpPort)"])
        let figure: (Measurement, CPUShare)
        do {
            let transport = variant.transport(server.port, httpPort)
            let load = TransportLoad(group: group, host: server.host, warmup: options.warmup, duration: options.duration)
            try await load.touch(ids, transport: transport)
            let start = CPUShare.Start(serverPID: server.processIdentifier)
            let measurement = try await load.run(connections: 50, transport: transport, workload: GetWorkload.factory(ids: ids))
            figure = (measurement, start.share())
        } catch {
            say("docserver (\(variant.label)): \(server.stop()); its log ends with:\n\(server.logTail())")
            throw error
        }
        let ended = server.stop()
        if ended != "exit status 0" { say("    docserver (\(variant.label)) ended: \(ended) (expected exit status 0)") }
        return figure
    }

    /// A self-signed certificate and its key (PEM) for `localhost` and 127.0.0.1, in the run's directory.
    private func makeCertificate() throws -> (certificate: String, key: String) {
        let certificate = directory.appendingPathComponent("server.crt").path, key = directory.appendingPathComponent("server.key").path
        guard let openssl = which("openssl") else { throw BenchmarkError("--transports needs openssl (Debian's openssl package) to make a certificate") }
        let (status, _) = try runProgram(openssl, [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout", key, "-out", certificate,
        ], quiet: true)
        guard status == 0 else { throw BenchmarkError("openssl req -x509 failed (exit status \(status))") }
        return (certificate, key)
    }
}
