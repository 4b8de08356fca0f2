import Foundation

/// Where a client connects and how long it waits.
public struct ClientConfiguration: Sendable, Equatable, CustomStringConvertible {
    /// The server's host name or address.
    public var host: String
    /// The server's port.
    public var port: Int
    /// The server's auth token, sent with `hello` on every new connection.
    public var token: String?
    /// A user of the server's users file and its secret, sent with `hello` (docs/SECURITY.md).
    public var user: String?
    /// The user's secret; never in ``description``.
    public var secret: String?
    /// TLS, verifying the server's certificate; nil: plain TCP.
    public var tls: ClientTLS?
    /// The name sent with `hello`, for the server's log.
    public var clientName: String
    /// Seconds to wait for a connection.
    public var connectTimeout: Double
    /// Seconds to wait for each answer; past that the connection is closed.
    public var requestTimeout: Double
    /// The longest answer line accepted, in bytes.
    public var maximumLineLength: Int

    /// A configuration; the defaults are a server on `127.0.0.1:7878` without a token, 10 s to
    /// connect, 60 s for each answer and answer lines of up to 1 GiB.
    public init(host: String = "127.0.0.1", port: Int = 7878, token: String? = nil, clientName: String = "DocumentClient",
                connectTimeout: Double = 10, requestTimeout: Double = 60, maximumLineLength: Int = 1 << 30) {
        self.host = host
        self.port = port
        self.token = token
        self.clientName = clientName
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.maximumLineLength = maximumLineLength
    }

    /// Seconds as a NIO time amount, without a trapping conversion: NaN and negative times
    /// become 0, times past the Int64 nanosecond range (about 292 years) that range's end.
    static func nanoseconds(_ seconds: Double) -> Int64 {
        let nanoseconds = seconds * 1e9
        guard nanoseconds > 0 else { return 0 }
        return nanoseconds < 9.2e18 ? Int64(nanoseconds) : Int64.max
    }

    /// Where and as whom, without the secret or the token.
    public var description: String {
        "ClientConfiguration(\(address)\(tls == nil ? "" : " tls")\(user.map { " user \($0)" } ?? "")\(token == nil ? "" : " token"))"
    }

    /// `host:port`, for messages.
    public var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
