/// How a ``DocumentServer`` listens and what it accepts.
public struct ServerConfiguration: Sendable {
    /// The address to listen on; `127.0.0.1` unless said otherwise.
    public var host: String
    /// The TCP port; 0 picks a free one (``DocumentServer/run(onListening:)`` reports it).
    public var port: Int
    /// When set, every connection must `hello` with this token first. Required for a
    /// non-loopback ``host``.
    public var authToken: String?
    /// The longest line (message) accepted, in bytes; a longer one is refused and its
    /// connection closed.
    public var maximumLineLength: Int
    /// Threads for network I/O.
    public var ioThreads: Int
    /// How long one fetch may run on the store thread; past it the request fails with
    /// error -32007 (time limit exceeded) and the thread is free again. Nil: no limit.
    public var requestTimeLimit: Duration?
    /// The default request time limit: 10 seconds.
    public static let defaultRequestTimeLimit: Duration = .seconds(10)

    /// The default port.
    public static let defaultPort = 7878
    /// The default line limit: 16 MiB.
    public static let defaultMaximumLineLength = 16 << 20

    /// A configuration; every setting has a default.
    public init(host: String = "127.0.0.1", port: Int = ServerConfiguration.defaultPort, authToken: String? = nil,
                maximumLineLength: Int = ServerConfiguration.defaultMaximumLineLength, ioThreads: Int = 1,
                requestTimeLimit: Duration? = ServerConfiguration.defaultRequestTimeLimit) {
        self.host = host
        self.port = port
        self.authToken = authToken
        self.maximumLineLength = maximumLineLength
        self.ioThreads = ioThreads
        self.requestTimeLimit = requestTimeLimit
    }

    /// Whether `host` names only this machine.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
