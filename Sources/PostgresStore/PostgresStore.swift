import Foundation
import GraphCore

/// An incremental store whose objects live in a PostgreSQL database, registered as the
/// store type `"PostgreSQL"`.
///
/// ```swift
/// PostgresStore.register()
/// let coordinator = StoreCoordinator(model: model)
/// try coordinator.addPersistentStore(type: "PostgreSQL",
///                                    at: URL(string: "postgresql://app:secret@127.0.0.1:5432/graph"))
/// ```
///
/// - Adding the store creates the schema from the model on a database without one (one
///   table per entity hierarchy, join tables for to-many relationships, a sequence for
///   references, the store's metadata and the entities' version hashes: docs/POSTGRESQL.md),
///   and refuses a database made with another model, naming the entities that differ.
/// - A fetch is one `SELECT`: what of the predicate SQL can say exactly is a `WHERE`, and
///   then sorting, offset, limit and counting are done by PostgreSQL too; the rest of the
///   predicate is evaluated by GraphCore on the rows SQL narrowed down (``explain(_:)`` says which).
/// - A save is one transaction: every updated or deleted object's row is changed only
///   `WHERE "_version" = ` the version read, so two coordinators (two servers) saving the same
///   object give one conflict (`GraphError.conflict`), as one coordinator's contexts do.
///   Inverses and delete rules are applied by GraphCore before the save reaches the store.
///
/// Options (``GraphCore/StoreOptions/values``): `statementTimeout`, the seconds a statement may
/// take (default 30).
///
/// A save whose ``GraphCore/SaveChangesRequest/metadata`` holds parts writes one history row per
/// part in its transaction, numbered in commit order by every store on the database together
/// (its ``GraphCore/SaveResult/sequences``), and checks the metadata's read versions under a row
/// lock there: the store is a ``GraphCore/SharedDatabaseStore``.
public final class PostgresStore: IncrementalStore, SharedDatabaseStore, @unchecked Sendable {
    // Sendable as every store: its coordinator makes one call at a time into it, and the
    // session and layout are only touched from those calls.

    /// The store type name, `"PostgreSQL"`.
    public static let storeType = "PostgreSQL"

    /// Registers this class as the store type `"PostgreSQL"`.
    public static func register() {
        StoreRegistry.register(PostgresStore.self, as: storeType)
    }

    /// Where the database is (without its password).
    public let address: DatabaseURL
    let session: DatabaseSession
    private var cachedLayout: TableLayout?
    /// ``selectListWithToMany(root:)`` by root entity, made once (a server's reads repeat them).
    var objectSelectLists: [String: (list: String, toMany: [String: Int], width: Int)] = [:]
    /// The statement of ``objectReads(of:)`` by root entity, made once (``ObjectReadText``).
    var objectReadTexts: [String: ObjectReadText] = [:]
    /// How rows of a table are read into objects, by table (``RowReading``).
    var rowReadings: [String: RowReading] = [:]
    /// The statement of ``equalityRead(entityName:key:values:)`` by entity and key, made once.
    var equalityReadTexts: [EqualityReadKey: EqualityReadText?] = [:]
    /// Fetch plans by shape, so that fetches of one shape are translated once (``FetchPlanCache``).
    var fetchPlans = FetchPlanCache(limit: PostgresStore.fetchShapesKept)
    /// The most fetch shapes a store keeps the plans of.
    static let fetchShapesKept = 256

    /// The seconds a statement may take (the `statementTimeout` option).
    let statementTimeoutSeconds: Int

    /// A store for the database at `url` (`postgresql://user:password@host:port/database`);
    /// the coordinator calls it when the store is added. Nothing is sent until the coordinator
    /// loads the store's metadata.
    ///
    /// - Throws: ``PostgresStoreError/invalidURL(_:reason:)``, or ``GraphError/store(_:)`` for a
    ///   `statementTimeout` option that is not a whole number of seconds from 1 to 86400.
    public required init(coordinator: StoreCoordinator, configurationName: String?, url: URL?, options: StoreOptions) throws {
        guard let url else { throw PostgresStoreError.invalidURL("(none)", reason: "a PostgreSQL store needs a URL") }
        address = try DatabaseURL(url)
        var timeout = 30
        if let text = options.values["statementTimeout"] {
            guard let seconds = Int(text), (1...86_400).contains(seconds) else {
                throw GraphError.store("the option statementTimeout=\(text) is not a whole number of seconds from 1 to 86400")
            }
            timeout = seconds
        }
        statementTimeoutSeconds = timeout
        session = DatabaseSession(address: address, statementTimeoutSeconds: timeout)
        try super.init(coordinator: coordinator, configurationName: configurationName, url: url, options: options)
    }

    /// The layout of the coordinator's model.
    var layout: TableLayout {
        get throws {
            if let cachedLayout { return cachedLayout }
            guard let model else { throw GraphError.store("the store's coordinator is gone") }
            let made = try TableLayout(model: model)
            cachedLayout = made
            return made
        }
    }

    // MARK: - The shared database

    /// The database's URL without its password.
    public var locationDescription: String { address.description }

    /// The history of the database's commits, on connections of its own, with the previous
    /// values of their objects read for the coordinator's model.
    public func openCommitHistory() throws -> any CommitHistoryReader {
        guard let model else { throw GraphError.store("the store's coordinator is gone") }
        return PostgresHistory(address: address, statementTimeoutSeconds: statementTimeoutSeconds,
                               previous: PreviousValuesReader(model: model, storeIdentifier: identifier))
    }

    // MARK: - Opening

    /// Creates the schema on a database without one (unless the store is opened read-only:
    /// then such a database is refused with ``PostgresStoreError/noStore(address:)``), or reads the store's metadata and the
    /// entities' version hashes from it (the coordinator then refuses another model's database,
    /// naming the entities that differ).
    ///
    /// - Throws: ``PostgresStoreError`` (no database, a name PostgreSQL cannot take, a half-made schema).
    public override func loadMetadata() throws {
        guard let model else { throw GraphError.store("the store's coordinator is gone") }
        metadata = try SchemaSetup(session: session, layout: try layout, model: model)
            .openOrCreate(storeType: Self.storeType, create: !options.isReadOnly)
    }

    /// Closes the connection when the store is removed from its coordinator.
    public override func willRemove() {
        session.close()
    }

    // MARK: - Requests

    /// Runs a fetch as one `SELECT` (plus one per to-many relationship for the objects' values)
    /// or a save as one transaction.
    public override func execute(_ request: StoreRequest) throws -> StoreResponse {
        switch request {
        case .fetch(let fetch): return .fetched(try runFetch(fetch))
        case .save(let save): return .saved(try runSave(save))
        }
    }

    /// References from the sequence `_graph_references`, one per object (so that two
    /// coordinators on one database never hand out the same ID).
    public override func obtainPermanentIDs(for snapshots: [ObjectSnapshot]) throws -> [ObjectID] {
        let references = try nextReferences(snapshots.count)
        return zip(snapshots, references).map { newObjectID(for: $0.objectID.entity, referenceObject: .int($1)) }
    }

    /// One object's values and version.
    ///
    /// - Throws: `GraphError.objectNotFound` when the database has no such object.
    public override func newValues(forObjectWith id: ObjectID) throws -> IncrementalStoreNode {
        guard case .int(let reference) = id.referenceObject else { throw GraphError.objectNotFound(id) }
        let rows = try loadRows(root: TableLayout.root(of: id.entity), where: "t.\"_id\" = ", reference)
        guard let row = rows.first, row.objectID.entity.isKind(of: id.entity) || id.entity.isKind(of: row.objectID.entity) else {
            throw GraphError.objectNotFound(id)
        }
        var values: [String: Value] = [:]
        for (index, property) in row.objectID.entity.properties.enumerated() { values[property.name] = row.values[index] }
        return IncrementalStoreNode(objectID: id, version: row.version, values: values)
    }

    /// A relationship's value, read with the object's values.
    public override func newValue(forRelationship name: String, forObjectWith id: ObjectID) throws -> Value {
        try newValues(forObjectWith: id).values[name] ?? .null
    }

    /// `count` new references from the sequence, as one row holding them in one array (a row
    /// per reference cost the server more to read than the sequence costs the database).
    func nextReferences(_ count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        var statement = SQLStatement()
        statement.text = "SELECT array_agg(nextval('\(TableLayout.quoted(TableLayout.referenceSequence))')) "
            + "FROM generate_series(1, \(statement.parameter(Int64(count))))"
        let rows = try session.run(statement.text, statement.binds)
        let references: [Int64]?
        do {
            references = try rows.first?.makeRandomAccess()[0].decode([Int64]?.self)
        } catch {
            throw PostgresStoreError.damagedSchema("the sequence \(TableLayout.referenceSequence) gave values that are not integers")
        }
        guard let references, references.count == count else {
            throw PostgresStoreError.damagedSchema("the sequence \(TableLayout.referenceSequence) gave \(references?.count ?? 0) values for \(count)")
        }
        return references
    }
}
