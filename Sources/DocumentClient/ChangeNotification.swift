import DocumentProtocol
import GraphCore
import JSONCore

/// What one commit changed, as far as a subscription (``DocumentClient/changes(entity:predicate:arguments:since:includeValues:model:)``)
/// watches it: the params of the server's `changes` notification (`docs/PROTOCOL.md`).
///
/// For a live query (a subscription with a predicate), ``inserted`` holds the objects that
/// entered the result (new, or changed so that they now match), ``updated`` those that matched
/// and still match, ``removed`` the IDs of objects that still exist but no longer match, and
/// ``deleted`` the IDs of matching objects that were deleted.
public struct ChangeNotification: Sendable, Equatable {
    /// An object as the commit left it: its ID, its new version, and its values unless the
    /// subscription asked for none.
    public struct ChangedObject: Sendable, Equatable {
        /// The object's ID.
        public var objectID: ObjectID
        /// Its version after the commit.
        public var version: Int64
        /// Its values after the commit; nil when the subscription asked for no values.
        public var snapshot: ObjectSnapshot?

        /// An object at `version`, with its values when `snapshot` is given.
        public init(objectID: ObjectID, version: Int64, snapshot: ObjectSnapshot? = nil) {
            self.objectID = objectID
            self.version = version
            self.snapshot = snapshot
        }
    }

    /// The subscription's number on its connection (nil in a pulled record).
    public var subscription: Int64?
    /// The commit's number (commits are numbered 1, 2, …).
    public var seq: Int64
    /// The `client` name the saving connection gave in `hello`, nil when it gave none.
    public var author: String?
    /// When the commit was made: ISO 8601 text in UTC, as the server sent it.
    public var timestamp: String?
    /// Objects inserted (for a live query: that entered the result).
    public var inserted: [ChangedObject]
    /// Objects updated (for a live query: that matched before and still match).
    public var updated: [ChangedObject]
    /// IDs of watched objects the commit deleted.
    public var deleted: [ObjectID]
    /// IDs of objects that left a live query's result but still exist (empty otherwise).
    public var removed: [ObjectID]

    /// A change of commit `seq`.
    public init(subscription: Int64? = nil, seq: Int64, author: String? = nil, timestamp: String? = nil,
                inserted: [ChangedObject] = [], updated: [ChangedObject] = [], deleted: [ObjectID] = [], removed: [ObjectID] = []) {
        self.subscription = subscription
        self.seq = seq
        self.author = author
        self.timestamp = timestamp
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.removed = removed
    }

    /// The IDs as a GraphCore did-save notification: what a context merges.
    public var contextDidSave: ContextDidSave {
        var notification = ContextDidSave()
        notification.inserted = inserted.map(\.objectID)
        notification.updated = updated.map(\.objectID) + removed
        notification.deleted = deleted
        return notification
    }

    /// Reads a notification's params, or a record of a `changes` answer.
    init(wire params: JSONValue, reader: inout WireObjectReader, at path: String) throws(DocumentClientError) {
        func invalid(_ reason: String) -> DocumentClientError { .invalidResponse(address: reader.address, reason: "\(path)\(reason)") }
        guard case .object = params else { throw invalid(" is not an object") }
        guard case .number(let seqText)? = params[ChangeMembers.seq], let seq = Int64(seqText), seq >= 0 else { throw invalid(".seq is not a non-negative integer") }
        self.seq = seq
        if case .number(let text)? = params[ChangeMembers.subscription] { subscription = Int64(text) }
        if case .string(let text)? = params[ChangeMembers.author] { author = text }
        if case .string(let text)? = params[ChangeMembers.timestamp] { timestamp = text }
        func objects(_ key: String) throws(DocumentClientError) -> [ChangedObject] {
            guard let json = params[key], json != .null else { return [] }
            guard case .array(let elements) = json else { throw invalid(".\(key) is not an array") }
            var result: [ChangedObject] = []
            result.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                switch try reader.object(element, at: "\(path).\(key)[\(index)]") {
                case .snapshot(let snapshot):
                    result.append(ChangedObject(objectID: snapshot.objectID, version: snapshot.version, snapshot: snapshot))
                case .unchanged(let id, let version):
                    result.append(ChangedObject(objectID: id, version: version))
                }
            }
            return result
        }
        func ids(_ key: String) throws(DocumentClientError) -> [ObjectID] {
            guard let json = params[key], json != .null else { return [] }
            return try reader.objectIDs(json, at: "\(path).\(key)")
        }
        inserted = try objects(ChangeMembers.inserted)
        updated = try objects(ChangeMembers.updated)
        deleted = try ids(ChangeMembers.deleted)
        removed = try ids(ChangeMembers.removed)
    }
}
