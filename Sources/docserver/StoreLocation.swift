import ArgumentParser
import DocumentServer
import Foundation
import JSONAtomicStore
#if PostgreSQL
import PostgresStore
#endif

/// Where a server's store is, and so which store serves it: a JSON store file (one server,
/// the whole graph in memory, docs/FILE_FORMAT.md) or a PostgreSQL database that several
/// servers may share (docs/POSTGRESQL.md). The one place that maps a `--store` value to a
/// store type: the server itself names no store, it opens the type registered under
/// ``storeType`` and uses what the store can do (GraphCore's ``JournaledStore``,
/// ``SharedDatabaseStore``).
///
/// A database needs the PostgreSQL trait (Package.swift): without it a `postgresql://` value is
/// refused with a message that says how to build with it, never taken for a file name.
enum StoreLocation: Sendable, Equatable, CustomStringConvertible {
    /// A JSON store file.
    case file(URL)
    #if PostgreSQL
    /// A PostgreSQL database, `postgresql://user:password@host:port/database`.
    case postgreSQL(URL)
    #endif

    /// Reads the `--store` value: a `postgresql://` or `postgres://` URL names a database,
    /// anything else a file path.
    ///
    /// - Throws: ``PostgresStoreError/invalidURL(_:reason:)`` for a database URL that cannot be read;
    ///   without the PostgreSQL trait, a `ValidationError` for any database URL.
    init(_ text: String) throws {
        Self.registerStores()
        guard Self.namesDatabase(text) else {
            self = .file(URL(fileURLWithPath: text))
            return
        }
        #if PostgreSQL
        guard let url = URL(string: text) else {
            throw PostgresStoreError.invalidURL("(the postgresql:// value given)", reason: "it cannot be read as a URL")
        }
        _ = try DatabaseURL(url)
        self = .postgreSQL(url)
        #else
        throw ValidationError(PackageTrait.postgreSQL.missing("a postgresql:// store"))
        #endif
    }

    /// Whether `text` is a `postgresql://` or `postgres://` URL (a database, not a file path).
    static func namesDatabase(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://")
    }

    #if PostgreSQL
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
    #else
    /// Without the PostgreSQL trait: a command's `--store` that names a database is said on
    /// standard error with `verb` and what the build lacks (exit status 2), rather than looked
    /// for as a file of that name.
    static func refuseDatabase(named text: String, verb: String) throws {
        guard namesDatabase(text) else { return }
        FileHandle.standardError.write(Data("cannot \(verb): \(PackageTrait.postgreSQL.missing("a postgresql:// store"))\n".utf8))
        throw ExitCode(2)
    }
    #endif

    /// Whether it is a database (never, without the PostgreSQL trait).
    var isDatabase: Bool {
        switch self {
        case .file: return false
        #if PostgreSQL
        case .postgreSQL: return true
        #endif
        }
    }

    /// The store's URL.
    var url: URL {
        switch self {
        case .file(let url): return url
        #if PostgreSQL
        case .postgreSQL(let url): return url
        #endif
        }
    }

    /// The store type its engine opens.
    var storeType: String {
        switch self {
        case .file: return JSONAtomicStore.storeType
        #if PostgreSQL
        case .postgreSQL: return PostgresStore.storeType
        #endif
        }
    }

    /// The location for a message or a log (a database's URL without its password).
    var description: String {
        switch self {
        case .file(let url): return url.path
        #if PostgreSQL
        case .postgreSQL(let url): return (try? DatabaseURL(url).description) ?? DatabaseURL.redacted(url)
        #endif
        }
    }

    /// Registers the stores a location may name (once; later calls do nothing).
    static func registerStores() {
        _ = registration
    }

    private static let registration: Void = {
        JSONAtomicStore.register()
        #if PostgreSQL
        PostgresStore.register()
        #endif
    }()
}
