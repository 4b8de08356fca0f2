import DocumentProtocol
import Foundation
import GraphCore
import JSONCore
import NIOCore

/// The notifications of one commit, encoded once for every subscription that gets them.
///
/// Every notification of a commit starts with the same members (`seq`, `author`,
/// `timestamp`), and an object that several kinds of filter send is sent alike by all of them:
/// each is encoded once per commit. An object's wire form is taken from the
/// ``WireObjectCache`` when it holds that version (as `get` answers it from the commit's
/// state), else encoded and put there, so that a `get` after the notification is answered
/// from the same bytes. A kind of filter's members are these bytes joined, exactly as
/// ``FeedRecordWriter/members(_:_:includeValues:liveQuery:to:)`` writes them; the line of
/// its notification for subscription number `n` is one `ByteBuffer`, which the connections
/// of every subscription numbered `n` write as it is (a `ByteBuffer` is copied on write, and
/// a channel never writes to what it sends).
///
/// Not `Sendable`: made and used on the feed thread, for one commit.
final class CommitNotifications {
    let set: ChangeSet
    /// Where wire forms are looked up and kept; nil: each is encoded.
    private let cache: WireObjectCache?
    /// The state after the commit, when the wire cache may serve it (it holds every object).
    private let cacheState: ReadState?
    /// `"seq":…,"author":…,"timestamp":…`, made at the first notification.
    private var header: [UInt8]?
    /// An object's form, checked against the object before use: IDs of one entity hierarchy
    /// are equal (`graph://S/Dog/7` is `graph://S/Cat/7`).
    private struct Encoded {
        let entity: EntityDescription
        let version: Int64
        let bytes: [UInt8]

        func holds(_ snapshot: ObjectSnapshot) -> Bool {
            entity === snapshot.objectID.entity && version == snapshot.version
        }
    }

    /// Wire forms (with values) and references (`{"id","entity","version"}`) by object.
    private var wireForms: [ObjectID: Encoded] = [:]
    private var references: [ObjectID: Encoded] = [:]
    /// IDs' URI forms as JSON strings (deleted and removed objects).
    private var uris: [ObjectID: Encoded] = [:]

    /// One generator for every value of the commit (nil until the first, and after a failure).
    private var generator: JSONGenerator?

    init(_ set: ChangeSet, cache: WireObjectCache?) {
        self.set = set
        self.cache = cache
        cacheState = set.stateAfter.flatMap { $0.isComplete ? $0 : nil }
    }

    /// The members of `record`'s notification for `filter` (after `"subscription":n,`), without
    /// braces.
    func members(_ record: FeedFilter.Record, filter: FeedFilter) throws -> [UInt8] {
        var bytes = try headerBytes()
        bytes += Self.insertedKey
        try append(record.inserted, includeValues: filter.includeValues, to: &bytes)
        bytes += Self.updatedKey
        try append(record.updated, includeValues: filter.includeValues, to: &bytes)
        bytes += Self.deletedKey
        try append(record.deleted, to: &bytes)
        if filter.isLiveQuery {
            bytes += Self.removedKey
            try append(record.removed, to: &bytes)
        }
        return bytes
    }

    /// `,"name":[`: the members' names are plain ASCII, written as yajl writes them.
    private static func key(_ name: String) -> [UInt8] {
        Array(",\"\(name)\":[".utf8)
    }

    private static let insertedKey = key(ChangeMembers.inserted)
    private static let updatedKey = key(ChangeMembers.updated)
    private static let deletedKey = key(ChangeMembers.deleted)
    private static let removedKey = key(ChangeMembers.removed)

    private func headerBytes() throws -> [UInt8] {
        if let header { return header }
        let set = set
        let object = try encode { out in
            try out.openObject()
            try FeedRecordWriter.header(set, to: out)
            try out.closeObject()
        }
        let made = Array(object.dropFirst().dropLast())  // the braces cut off
        header = made
        return made
    }

    /// Appends the objects, comma-separated, and the array's closing bracket.
    private func append(_ snapshots: [ObjectSnapshot], includeValues: Bool, to bytes: inout [UInt8]) throws {
        for (index, snapshot) in snapshots.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += try includeValues ? wireForm(snapshot) : reference(snapshot)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    private func append(_ ids: [ObjectID], to bytes: inout [UInt8]) throws {
        for (index, id) in ids.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += try uri(id)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// The object's wire form, as `get` answers it from the commit's state.
    private func wireForm(_ snapshot: ObjectSnapshot) throws -> [UInt8] {
        if let known = wireForms[snapshot.objectID], known.holds(snapshot) { return known.bytes }
        let bytes: [UInt8]
        if let cache, let state = cacheState, let entry = cache.entry(for: snapshot, epoch: state.clearingEpoch) {
            bytes = entry.bytes
        } else {
            bytes = try encode { try WireObjectEncoder.write(snapshot, to: $0) }
            if let cache, let state = cacheState {
                cache.insertUnlessNewer(WireObjectCache.Entry(version: snapshot.version, bytes: bytes, epoch: state.clearingEpoch),
                                        for: snapshot.objectID)
            }
        }
        wireForms[snapshot.objectID] = Encoded(entity: snapshot.objectID.entity, version: snapshot.version, bytes: bytes)
        return bytes
    }

    /// `{"id":…,"entity":…,"version":n}`: the object without its values.
    private func reference(_ snapshot: ObjectSnapshot) throws -> [UInt8] {
        if let known = references[snapshot.objectID], known.holds(snapshot) { return known.bytes }
        let bytes = try encode { try FeedRecordWriter.reference(snapshot, to: $0) }
        references[snapshot.objectID] = Encoded(entity: snapshot.objectID.entity, version: snapshot.version, bytes: bytes)
        return bytes
    }

    private func uri(_ id: ObjectID) throws -> [UInt8] {
        if let known = uris[id], known.entity === id.entity { return known.bytes }
        let bytes = try encode { try WireObjectEncoder.writeURI(id, to: $0) }
        uris[id] = Encoded(entity: id.entity, version: 0, bytes: bytes)
        return bytes
    }

    /// The bytes of one JSON value `body` writes, as `JSONText.make` makes them, on the
    /// commit's one generator.
    private func encode(_ body: (JSONGenerator) throws -> Void) throws -> [UInt8] {
        let out = try generator ?? JSONGenerator()
        generator = nil  // given back only when the value was whole
        try body(out)
        var bytes: [UInt8] = []
        try out.flush { bytes = Array($0) }
        out.reset(separator: nil)
        generator = out
        return bytes
    }
}
