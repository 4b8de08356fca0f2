import Foundation
import PostgresNIO

/// Where a PostgreSQL store lives: `postgresql://user:password@host:port/database`
/// (`postgres://` too), read from the store's URL.
public struct DatabaseURL: Sendable, Equatable, CustomStringConvertible {
    /// The server's host name or address.
    public var host: String
    /// The server's port (5432 when the URL names none).
    public var port: Int
    /// The user to log in as.
    public var username: String
    /// The user's password, if any.
    public var password: String?
    /// The database's name (the user's name when the URL names none, as `psql` does).
    public var database: String

    /// Reads a store URL.
    ///
    /// - Throws: ``PostgresStoreError/invalidURL(_:reason:)`` naming what is missing or wrong.
    public init(_ url: URL) throws(PostgresStoreError) {
        let text = Self.redacted(url)
        guard let scheme = url.scheme?.lowercased(), scheme == "postgresql" || scheme == "postgres" else {
            throw .invalidURL(text, reason: "the scheme must be postgresql")
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw .invalidURL(text, reason: "it cannot be read as a URL")
        }
        guard let host = components.host, !host.isEmpty else { throw .invalidURL(text, reason: "it names no host") }
        guard let user = components.user, !user.isEmpty else { throw .invalidURL(text, reason: "it names no user") }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw .invalidURL(text, reason: "the port \(port) is outside 1-65535") }
        var name = components.path
        if name.hasPrefix("/") { name.removeFirst() }
        guard !name.contains("/") else { throw .invalidURL(text, reason: "the database name \(name) contains '/'") }
        self.host = host
        self.port = port
        self.username = user
        self.password = components.password
        self.database = name.isEmpty ? user : name
    }

    /// The URL without its password, for messages and logs.
    public var description: String { "postgresql://\(username)@\(host):\(port)/\(database)" }

    /// A URL's text with its password replaced by `***`.
    public static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(unreadable URL)" }
        if components.password != nil { components.password = "***" }
        return components.string ?? "(unreadable URL)"
    }

    /// The connection settings postgres-nio needs (without TLS: the server is on a trusted network).
    var configuration: PostgresConnection.Configuration {
        PostgresConnection.Configuration(host: host, port: port, username: username, password: password, database: database, tls: .disable)
    }
}
