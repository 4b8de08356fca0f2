import Foundation
import JSONAtomicStore
import PostgresStore

/// Where a server's store is, and so which engine serves it: a JSON store file (one server,
/// the whole graph in memory, docs/FILE_FORMAT.md) or a PostgreSQL database that several
/// servers may share (docs/POSTGRESQL.md).
public enum StoreLocation: Sendable, Equatable, CustomStringConvertible {
    /// A JSON store file.
    case file(URL)
    /// A PostgreSQL database, `postgresql://user:password@host:port/database`.
    case postgreSQL(URL)

    /// Reads the `--store` value: a `postgresql://` or `postgres://` URL names a database,
    /// anything else a file path.
    ///
    /// - Throws: ``PostgresStoreError/invalidURL(_:reason:)`` for a database URL that cannot be read.
    public init(_ text: String) throws {
        let lowered = text.lowercased()
        guard lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://") else {
            self = .file(URL(fileURLWithPath: text))
            return
        }
        guard let url = URL(string: text) else {
            throw PostgresStoreError.invalidURL("(the postgresql:// value given)", reason: "it cannot be read as a URL")
        }
        _ = try DatabaseURL(url)
        self = .postgreSQL(url)
    }

    /// The store's URL.
    public var url: URL {
        switch self {
        case .file(let url), .postgreSQL(let url): return url
        }
    }

    /// The store type its engine opens.
    public var storeType: String {
        switch self {
        case .file: return JSONAtomicStore.storeType
        case .postgreSQL: return PostgresStore.storeType
        }
    }

    /// The location for a message or a log (a database's URL without its password).
    public var description: String {
        switch self {
        case .file(let url): return url.path
        case .postgreSQL(let url): return (try? DatabaseURL(url).description) ?? DatabaseURL.redacted(url)
        }
    }
}
