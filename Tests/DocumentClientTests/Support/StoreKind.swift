import PostgresTestSupport

/// The stores every behaviour test runs on: the same test, the same expectations, five stores
/// (PostgreSQL only where it is installed or can be: `PostgresCluster`).
///
/// ```swift
/// @Test(arguments: StoreKind.allCases)
/// func savedObjectsAreFetchedAgain(kind: StoreKind) throws {
///     let store = try StoreFixture(kind)
///     …
/// }
/// ```
enum StoreKind: String, CaseIterable, Sendable, CustomStringConvertible {
    /// Every kind whose store can run here: PostgreSQL's needs its programs.
    static let allCases: [StoreKind] = [.inMemory, .json, .documentServer]
        + (PostgresCluster.isInstalled ? [.postgreSQL, .cachedDatabaseServer] : [])

    /// GraphCore's `InMemoryStore` (`"InMemory"`).
    case inMemory
    /// `JSONAtomicStore` (`"JSON"`) on a file in a temporary directory.
    case json
    /// `RemoteStore` (`"DocumentServer"`) talking to a `docserver serve` process the test starts.
    case documentServer
    /// `PostgresStore` (`"PostgreSQL"`) on a new database of the tests' PostgreSQL cluster.
    case postgreSQL
    /// `RemoteStore` talking to a `docserver serve` on a new database of the tests' PostgreSQL
    /// cluster with a cache of 1 byte (`--cache-bytes 1`): it keeps no object, so every read
    /// misses and goes to the database, and every save reads what it checks from there.
    case cachedDatabaseServer

    var description: String { rawValue }

    /// Whether the objects outlive the store: a reopened store still holds them. An in-memory
    /// store's objects live only as long as the store itself.
    var persists: Bool { self != .inMemory }

    /// Whether a second context works through a coordinator and a connection of its own (the
    /// network case), rather than through the same coordinator as the first.
    /// (A PostgreSQL store's second coordinator is another client of the same database, as
    /// another server would be.)
    var isRemote: Bool { self == .documentServer || self == .postgreSQL || self == .cachedDatabaseServer }

    /// Whether the test talks to a `docserver serve` process.
    var hasServer: Bool { self == .documentServer || self == .cachedDatabaseServer }
}
