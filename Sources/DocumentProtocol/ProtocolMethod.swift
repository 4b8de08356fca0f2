/// The methods of `docs/PROTOCOL.md` and the names of the members of their parameters and
/// results: one definition that the server's readers and writers and the clients' share.
public enum ProtocolMethod: String, Sendable, CaseIterable {
    /// Says who the client is (and its token); answers who the server is.
    case hello
    /// Answers the server's model file.
    case model
    /// Answers `"pong"`.
    case ping
    /// Finds objects by entity and predicate.
    case fetch
    /// Reads objects by ID.
    case get
    /// Inserts, updates and deletes objects at once.
    case save
    /// Starts a subscription: the server pushes a `changes` notification per commit it watches.
    case subscribe
    /// Ends a subscription.
    case unsubscribe
    /// Answers the commits after a sequence number (the history, pulled).
    case changes
    /// Answers the server's counters and sizes (as Redis' `INFO`).
    case stats
    /// Answers the requests slower than the server's threshold (as Redis' `SLOWLOG`).
    case slowlog
    /// Copies the server's store, while saves go on, into a directory on its machine.
    case backup

    /// The names in the order the protocol lists them:
    /// `hello, model, ping, fetch, get, save, subscribe, unsubscribe, changes, stats, slowlog, backup`.
    public static var list: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// The members of an object on the wire: `{"id","entity","version","values"}`.
public enum WireObjectMembers {
    /// The object's ID (its URI, or a temporary wire ID in a save).
    public static let id = "id"
    /// Its entity's name.
    public static let entity = "entity"
    /// Its version (optimistic locking).
    public static let version = "version"
    /// Its values by property name.
    public static let values = "values"
}

/// The members of `hello`'s parameters and result.
public enum HelloMembers {
    /// Parameter: the server's token.
    public static let token = "token"
    /// Parameter: the client's name, for the server's log.
    public static let client = "client"
    /// Parameter: a user of the server's users file (docs/SECURITY.md).
    public static let user = "user"
    /// Parameter: the user's secret.
    public static let secret = "secret"
    /// Result: `docserver`.
    public static let server = "server"
    /// Result: the server's version.
    public static let version = "version"
    /// Result: the protocol version.
    public static let protocolVersion = "protocol"
    /// Result: the UUID of the store.
    public static let storeUUID = "storeUUID"
    /// Result: the version hash of the model.
    public static let modelHash = "modelHash"
}

/// The members of `fetch`'s parameters and result.
public enum FetchMembers {
    /// The entity fetched.
    public static let entity = "entity"
    /// The predicate, in the format-string language.
    public static let predicate = "predicate"
    /// The predicate's `%@` arguments.
    public static let arguments = "arguments"
    /// The sort descriptors: objects of ``sortKey``, ``ascending``, ``caseInsensitive``.
    public static let sort = "sort"
    /// A sort descriptor's key path.
    public static let sortKey = "key"
    /// A sort descriptor's direction.
    public static let ascending = "ascending"
    /// Whether a sort descriptor compares strings ignoring case.
    public static let caseInsensitive = "caseInsensitive"
    /// The most results.
    public static let limit = "limit"
    /// How many results to skip.
    public static let offset = "offset"
    /// Whether objects of sub-entities count (`true` unless given).
    public static let includeSubentities = "includeSubentities"
    /// What to answer: one of ``ResultType``.
    public static let resultType = "resultType"

    /// The values of ``resultType``, each also the member of the result that holds the answer.
    public enum ResultType: String, Sendable, CaseIterable {
        /// The objects with their values.
        case objects
        /// Their IDs.
        case ids
        /// How many there are.
        case count
    }
}

/// The members of `get`'s parameters and result.
public enum GetMembers {
    /// Parameter: the IDs read.
    public static let ids = "ids"
    /// Parameter: the versions the client holds, by position (an unchanged object is answered
    /// without its values).
    public static let versions = "versions"
    /// Result: the objects, in the order of `ids`.
    public static let objects = "objects"
}

/// The members of `save`'s parameters and result.
public enum SaveMembers {
    /// Parameter: the objects inserted.
    public static let insert = "insert"
    /// Parameter: the objects updated.
    public static let update = "update"
    /// Parameter: the objects deleted.
    public static let delete = "delete"
    /// Result: the permanent ID of each inserted object, by its temporary one.
    public static let ids = "ids"
    /// Result: the new version of each object saved, by ID.
    public static let versions = "versions"
    /// Result: the objects deleted (delete rules included).
    public static let deleted = "deleted"
    /// Result: the objects changed besides those updated (inverse relationships).
    public static let updated = "updated"
}

/// The members of `subscribe`, `unsubscribe` and `changes`, and of the `changes` and `resync`
/// notifications (`docs/PROTOCOL.md`, Live changes).
public enum ChangeMembers {
    /// Parameter: the entity watched (with its sub-entities); none watches all.
    public static let entity = "entity"
    /// Parameter: the predicate of a live query (needs ``entity``).
    public static let predicate = "predicate"
    /// Parameter: the predicate's `%@` arguments.
    public static let arguments = "arguments"
    /// Parameter: resume after this sequence number (history first, then live commits).
    public static let since = "since"
    /// Parameter: whether objects carry their values (`true` unless given).
    public static let includeValues = "includeValues"
    /// Parameter of `changes`: the most records answered.
    public static let limit = "limit"
    /// The subscription's number, unique on its connection.
    public static let subscription = "subscription"
    /// A commit's sequence number; in a result, where the answer stands.
    public static let seq = "seq"
    /// Who made a commit (the `client` of its connection's `hello`), or null.
    public static let author = "author"
    /// When a commit was made.
    public static let timestamp = "timestamp"
    /// Objects inserted (for a live query: that entered the result).
    public static let inserted = "inserted"
    /// Objects updated (for a live query: that matched before and still match).
    public static let updated = "updated"
    /// IDs of objects deleted.
    public static let deleted = "deleted"
    /// IDs of objects that left a live query's result but still exist.
    public static let removed = "removed"
    /// Result of `changes`: the records.
    public static let changes = "changes"
    /// Result of `changes`: whether more commits follow.
    public static let more = "more"
    /// The `resync` notification's reason.
    public static let reason = "reason"
    /// The notification of a commit.
    public static let changesNotification = "changes"
    /// The notification that ends a subscription that fell behind.
    public static let resyncNotification = "resync"
}

/// The members of `slowlog`'s parameters and result (`docs/PROTOCOL.md`, Operations).
public enum SlowLogMembers {
    /// Parameter: empty the slow log after answering it.
    public static let reset = "reset"
    /// Result: the threshold, in milliseconds.
    public static let thresholdMilliseconds = "thresholdMilliseconds"
    /// Result: how many slow requests there were since the server started (the log keeps the last 128).
    public static let total = "total"
    /// Result: the entries, oldest first: `{"id","timestamp","method","entity","predicate","milliseconds"}`.
    public static let entries = "entries"
}
