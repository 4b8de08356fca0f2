import Foundation
import NIOSSL
import PostgresNIO

/// Where a PostgreSQL store lives: `postgresql://user:password@host:port/database`
/// (`postgres://` too), read from the store's URL, with libpq's TLS parameters
/// `?sslmode=disable|prefer|require|verify-ca|verify-full` and `&sslrootcert=PATH`.
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
    /// Whether and how the connection is encrypted (`sslmode`; `prefer` when the URL names none, as libpq).
    public var sslMode: SSLMode
    /// The PEM file of the certificate authorities `verify-ca` and `verify-full` trust
    /// (`sslrootcert`; the system's when the URL names none).
    public var sslRootCertificate: String?

    /// libpq's `sslmode`, as PostgreSQL documents it.
    public enum SSLMode: String, Sendable, CaseIterable {
        /// No TLS.
        case disable
        /// TLS when the server offers it, else plain; the certificate is not checked.
        case prefer
        /// TLS or no connection; the certificate is not checked.
        case require
        /// TLS, with a certificate signed by a trusted authority (any name).
        case verifyCA = "verify-ca"
        /// TLS, with a certificate signed by a trusted authority for the URL's host name.
        case verifyFull = "verify-full"
    }

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
        var mode = SSLMode.prefer
        var rootCertificate: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let value = item.value, let named = SSLMode(rawValue: value) else {
                    throw .invalidURL(text, reason: "sslmode=\(item.value ?? "") is not one of "
                                      + SSLMode.allCases.map(\.rawValue).joined(separator: ", "))
                }
                mode = named
            case "sslrootcert":
                guard let value = item.value, !value.isEmpty else { throw .invalidURL(text, reason: "sslrootcert names no file") }
                rootCertificate = value
            default:
                throw .invalidURL(text, reason: "the parameter \(item.name) is not one this store reads (sslmode, sslrootcert)")
            }
        }
        if mode == .verifyFull && Self.isAddress(host) {
            throw .invalidURL(text, reason: "sslmode=verify-full checks the certificate against a host name, and \(host) is an address: "
                              + "name the host, or use sslmode=verify-ca")
        }
        self.host = host
        self.port = port
        self.username = user
        self.password = components.password
        self.database = name.isEmpty ? user : name
        self.sslMode = mode
        self.sslRootCertificate = rootCertificate
    }

    /// The URL without its password, for messages and logs.
    public var description: String {
        "postgresql://\(username)@\(host):\(port)/\(database)" + (sslMode == .prefer ? "" : "?sslmode=\(sslMode.rawValue)")
    }

    /// A URL's text with its password replaced by `***`.
    public static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(unreadable URL)" }
        if components.password != nil { components.password = "***" }
        return components.string ?? "(unreadable URL)"
    }

    /// The connection settings postgres-nio needs, with the TLS of ``sslMode``.
    ///
    /// - Throws: ``PostgresStoreError/connectionFailed(address:reason:)`` when the certificate
    ///   authorities' file cannot be read.
    func configuration() throws(PostgresStoreError) -> PostgresConnection.Configuration {
        var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
        tlsConfiguration.minimumTLSVersion = .tlsv12
        switch sslMode {
        case .disable, .prefer, .require: tlsConfiguration.certificateVerification = .none
        case .verifyCA: tlsConfiguration.certificateVerification = .noHostnameVerification
        case .verifyFull: tlsConfiguration.certificateVerification = .fullVerification
        }
        if let sslRootCertificate, sslMode == .verifyCA || sslMode == .verifyFull {
            guard FileManager.default.isReadableFile(atPath: sslRootCertificate) else {
                throw .connectionFailed(address: description, reason: "sslrootcert \(sslRootCertificate) cannot be read")
            }
            tlsConfiguration.trustRoots = .file(sslRootCertificate)
        }
        let tls: PostgresConnection.Configuration.TLS
        do {
            switch sslMode {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(try NIOSSLContext(configuration: tlsConfiguration))
            case .require, .verifyCA, .verifyFull: tls = .require(try NIOSSLContext(configuration: tlsConfiguration))
            }
        } catch {
            throw .connectionFailed(address: description, reason: "the TLS settings cannot be used: \(error)")
        }
        return PostgresConnection.Configuration(host: host, port: port, username: username, password: password, database: database, tls: tls)
    }

    /// Whether a URL's host is an IPv4 or IPv6 address rather than a name.
    private static func isAddress(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return inet_pton(AF_INET, bare, &v4) == 1 || inet_pton(AF_INET6, bare, &v6) == 1
    }
}
