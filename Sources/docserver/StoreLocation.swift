import ArgumentParser
import Foundation
import JSONAtomicStore
import PostgresStore

/// Where a server's store is, and so which store serves it: a JSON store file (one server,
/// the whole graph in memory, docs/FILE_FORMAT.md) or a PostgreSQL database that several
/// servers may share (docs/POSTGRESQL.md). The one place that maps a `--store` value to a
/// store type: the server itself names no store, it opens the type registered under
/// ``storeType`` and uses what the store can do (GraphCore's ``JournaledStore``,
/// ``SharedDatabaseStore``).
enum StoreLocation: Sendable, Equatable, CustomStringConvertible {
    /// A JSON store file.
    case file(URL)
    /// A PostgreSQL database, `postgresql://user:password@host:port/database`.
    case postgreSQL(URL)

    /// Reads the `--store` value: a `postgresql://` or `postgres://` URL names a database,
    /// anything else a file path.
    ///
    /// - Throws: ``PostgresStoreError/invalidURL(_:reason:)`` for a database URL that cannot be read.
    init(_ text: String) throws {
        Self.registerStores()
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

    /// The database a command's `--store` names, or nil when it names a store file. A
    /// `postgresql://` value that is not a usable URL is said on standard error with `verb`
    /// (exit status 2), rather than looked for as a file of that name.
    static func database(named text: String, verb: String) throws -> (url: URL, location: StoreLocation)? {
        let location: StoreLocation
        do {
            location = try StoreLocation(text)
        } catch {
            FileHandle.standardError.write(Data("cannot \(verb): \(error)\n".utf8))
            throw ExitCode(2)
        }
        guard case .postgreSQL(let url) = location else { return nil }
        return (url, location)
    }

    /// The store's URL.
    var url: URL {
        switch self {
        case .file(let url), .postgreSQL(let url): return url
        }
    }

    /// The store type its engine opens.
    var storeType: String {
        switch self {
        case .file: return JSONAtomicStore.storeType
        case .postgreSQL: return PostgresStore.storeType
        }
    }

    /// The location for a message or a log (a database's URL without its password).
    var description: String {
        switch self {
        case .file(let url): return url.path
        case .postgreSQL(let url): return (try? DatabaseURL(url).description) ?? DatabaseURL.redacted(url)
        }
    }

    /// Registers the stores a location may name (once; later calls do nothing).
    static func registerStores() {
        _ = registration
    }

    private static let registration: Void = {
        JSONAtomicStore.register()
        PostgresStore.register()
    }()
}
