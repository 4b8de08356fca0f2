import Foundation
import GraphCore

/// The settings of a ``RemoteStore``, read from its URL and `StoreOptions.values`:
///
/// | option | meaning | default |
/// |---|---|---|
/// | `token` | the server's auth token | none |
/// | `user`, `secret` | a user of the server's users file and its secret (docs/SECURITY.md) | none |
/// | `tls` | `true`: TLS, verifying the server's certificate and host name | `false` (`true` when `tlsCA` is given) |
/// | `tlsCA` | the certificate authorities to trust (a PEM file) | the system's |
/// | `tlsServerName` | the name the server's certificate must carry | the URL's host |
/// | `connectTimeout` | seconds to wait for a connection | 10 |
/// | `requestTimeout` | seconds to wait for each answer | 60 |
/// | `prefetch` | how many faults one `get` loads when one of them fires (1: no batching) | 100 |
/// | `prefetchLifetime` | seconds a row loaded ahead answers its fault without a round trip | 5 |
/// | `rowCacheCapacity` | how many objects' last-read values are kept (and how many faults are queued to load ahead) | 100000 |
/// | `client` | the name sent with `hello` (the `author` of the store's commits) | `RemoteStore` |
/// | `remoteChanges` | `true`: subscribe to the server's commits, so that contexts merge other processes' saves; `false`: do not | `true` |
///
/// Times are seconds greater than 0 and at most 1,000,000,000.
public struct RemoteStoreOptions: Sendable, Equatable {
    /// The option naming the server's auth token, `token`.
    public static let token = "token"
    /// The option naming the seconds to wait for a connection, `connectTimeout`.
    public static let connectTimeout = "connectTimeout"
    /// The option naming the seconds to wait for each answer, `requestTimeout`.
    public static let requestTimeout = "requestTimeout"
    /// The option naming how many faults one `get` loads, `prefetch`.
    public static let prefetch = "prefetch"
    /// The option naming the seconds a row loaded ahead is used, `prefetchLifetime`.
    public static let prefetchLifetime = "prefetchLifetime"
    /// The option naming how many objects' values the store keeps, `rowCacheCapacity`.
    public static let rowCacheCapacity = "rowCacheCapacity"
    /// The option naming the client name sent with `hello`, `client`.
    public static let clientName = "client"
    /// The option naming whether the store follows other processes' commits, `remoteChanges`.
    public static let remoteChanges = "remoteChanges"
    /// The options naming a user, its secret, and TLS (docs/SECURITY.md).
    public static let user = "user", secret = "secret", tls = "tls", tlsCA = "tlsCA", tlsServerName = "tlsServerName"
    static let known = [token, user, secret, tls, tlsCA, tlsServerName, connectTimeout, requestTimeout, prefetch, prefetchLifetime, rowCacheCapacity, clientName, remoteChanges]

    /// Where the store connects: host and port from the URL; token, timeouts and client name
    /// from the options.
    public var client: ClientConfiguration
    /// How many faults one `get` loads when one of them fires (1 to 100,000; 1: no batching).
    public var prefetch: Int
    /// Seconds a row loaded ahead answers its fault without a round trip.
    public var prefetchLifetime: Double
    /// How many objects' last-read values are kept (and how many faults are queued to load ahead).
    public var rowCacheCapacity: Int
    /// Whether the store subscribes to the server's commits, so that contexts over it merge
    /// other processes' saves (option `remoteChanges`, default true).
    public var mergesRemoteChanges: Bool

    /// Reads `docstore://host:port` (the port 7878 when none is given) and the options.
    ///
    /// - Throws: ``DocumentClientError/invalidURL(_:reason:)`` for another URL, and
    ///   ``DocumentClientError/invalidOption(name:value:expected:)`` for an unknown option or a
    ///   value out of range.
    public init(url: URL?, options: StoreOptions) throws(DocumentClientError) {
        guard let url else { throw .invalidURL("(none)", reason: "a RemoteStore needs the server's URL") }
        let text = url.absoluteString
        guard url.scheme?.lowercased() == "docstore" else { throw .invalidURL(text, reason: "the scheme must be docstore") }
        guard let host = url.host, !host.isEmpty else { throw .invalidURL(text, reason: "it names no host") }
        guard url.path.isEmpty || url.path == "/", url.query == nil, url.user == nil else {
            throw .invalidURL(text, reason: "only a host and a port may be given")
        }
        if let unknown = options.values.keys.sorted().first(where: { !Self.known.contains($0) }) {
            throw .invalidOption(name: unknown, value: options.values[unknown] ?? "", expected: "one of " + Self.known.joined(separator: ", "))
        }
        let values = options.values
        func number(_ name: String, _ fallback: Double) throws(DocumentClientError) -> Double {
            guard let text = values[name] else { return fallback }
            // At most 10^9 seconds (about 31 years): the time is kept in Int64 nanoseconds.
            guard let value = Double(text), value.isFinite, value > 0, value <= 1e9 else {
                throw .invalidOption(name: name, value: text, expected: "a number of seconds greater than 0 and at most 1000000000")
            }
            return value
        }
        func count(_ name: String, _ fallback: Int, maximum: Int) throws(DocumentClientError) -> Int {
            guard let text = values[name] else { return fallback }
            guard let value = Int(text), (1...maximum).contains(value) else {
                throw .invalidOption(name: name, value: text, expected: "a whole number from 1 to \(maximum)")
            }
            return value
        }
        let bareHost = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        client = ClientConfiguration(
            host: bareHost, port: url.port ?? 7878, token: values[Self.token], clientName: values[Self.clientName] ?? "RemoteStore",
            connectTimeout: try number(Self.connectTimeout, 10), requestTimeout: try number(Self.requestTimeout, 60))
        client.user = values[Self.user]
        client.secret = values[Self.secret]
        switch values[Self.tls] {
        case "true": client.tls = ClientTLS()
        case nil, "false": break
        case let text?: throw .invalidOption(name: Self.tls, value: text, expected: "true or false")
        }
        if values[Self.tlsCA] != nil || values[Self.tlsServerName] != nil {
            guard values[Self.tls] != "false" else {
                throw .invalidOption(name: Self.tls, value: "false", expected: "true (or absent) when tlsCA or tlsServerName is given")
            }
            client.tls = ClientTLS(caCertificatePath: values[Self.tlsCA], serverHostname: values[Self.tlsServerName])
        }
        prefetch = try count(Self.prefetch, 100, maximum: 100_000)
        prefetchLifetime = try number(Self.prefetchLifetime, 5)
        rowCacheCapacity = try count(Self.rowCacheCapacity, 100_000, maximum: Int(Int32.max))
        switch values[Self.remoteChanges] {
        case nil, "true": mergesRemoteChanges = true
        case "false": mergesRemoteChanges = false
        case let text?: throw .invalidOption(name: Self.remoteChanges, value: text, expected: "true or false")
        }
    }
}
