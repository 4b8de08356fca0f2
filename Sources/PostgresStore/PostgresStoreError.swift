import GraphCore

/// What can go wrong with a PostgreSQL store, with a message a user can act on.
public enum PostgresStoreError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The store's URL is not `postgresql://user:password@host:port/database`.
    case invalidURL(String, reason: String)
    /// No connection to the database could be made (or it was lost).
    case connectionFailed(address: String, reason: String)
    /// The database refused a statement; `sqlState` is PostgreSQL's code (`23505`, …).
    case statementFailed(sqlState: String?, message: String, statement: String)
    /// A row would break one of the unique indexes made from the model's uniqueness constraints.
    case uniqueIndexViolated(index: String, statement: String)
    /// A statement took longer than the store's time limit.
    case timedOut(seconds: Int, statement: String)
    /// A name of the model cannot be a PostgreSQL identifier (too long, or a name the store uses itself).
    case unsupportedName(String, reason: String)
    /// A value read from the database does not fit the model (a column altered by hand, say).
    case unreadableValue(entity: String, key: String, reason: String)
    /// The database holds tables of this store's layout, but not its metadata (a half-made schema).
    case damagedSchema(String)
    /// A store opened read-only found no store's schema in the database (read-only opens create nothing).
    case noStore(address: String)
    /// The store was called from an event loop thread, where waiting for the database would deadlock.
    case calledOnEventLoop
    /// A call's argument is outside what the store accepts.
    case invalidArgument(String)
    /// A statement's rows took more than `limit` bytes as they came (``RowCollector``), and
    /// the rest were not read.
    case resultTooLarge(limit: Int)
    /// The receiver of a statement's rows as they came (``RowStream``) stopped taking them; the
    /// rest were not read.
    case receiverStopped

    /// The message for a user.
    public var description: String {
        switch self {
        case .invalidURL(let url, let reason):
            return "invalid PostgreSQL store URL \(url): \(reason) (expected postgresql://user:password@host:port/database)"
        case .connectionFailed(let address, let reason):
            return "cannot connect to PostgreSQL at \(address): \(reason)"
        case .statementFailed(let state, let message, let statement):
            return "PostgreSQL refused a statement\(state.map { " (SQLSTATE \($0))" } ?? ""): \(message); statement: \(statement.prefix(200))"
        case .uniqueIndexViolated(let index, let statement):
            return "PostgreSQL refused a row that breaks the unique index \(index); statement: \(statement.prefix(200))"
        case .timedOut(let seconds, let statement):
            return "a PostgreSQL statement took longer than \(seconds) s: \(statement.prefix(200))"
        case .unsupportedName(let name, let reason):
            return "the model's name \(name) cannot be used in PostgreSQL: \(reason)"
        case .unreadableValue(let entity, let key, let reason):
            return "the database holds a value of \(entity).\(key) that the model cannot read: \(reason)"
        case .damagedSchema(let reason):
            return "the database's graph schema is damaged: \(reason)"
        case .noStore(let address):
            return "\(address) holds no graph store (no table \(TableLayout.metadataTable)); a read-only open creates nothing"
        case .calledOnEventLoop:
            return "the PostgreSQL store was called on an event loop thread; call it from another thread"
        case .invalidArgument(let reason):
            return reason
        case .resultTooLarge(let limit):
            return "a statement's rows took more than \(limit) bytes; the rest were not read"
        case .receiverStopped:
            return "the receiver of a statement's rows stopped taking them; the rest were not read"
        }
    }
}

extension PostgresStoreError {
    /// The error a fetch of `entity` throws for this one: a result past the request's limit of
    /// bytes is GraphCore's ``GraphCore/GraphError/resultTooLarge(entity:limit:)``.
    func ofFetch(of entity: String) -> any Error {
        if case .resultTooLarge(let limit) = self { return GraphError.resultTooLarge(entity: entity, limit: limit) }
        return self
    }
}
