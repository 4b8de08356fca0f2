import DocumentProtocol
import Foundation
import GraphCore
import JSONCore
import NIOCore

/// Writes change records: the members of a `changes` notification after `subscription`
/// (`"seq"`, `"author"`, `"timestamp"`, `"inserted"`, `"updated"`, `"deleted"`, and
/// `"removed"` for a live query), and the lines of notifications.
enum FeedRecordWriter {
    /// The record's members, without the braces (so that a notification can put its
    /// `subscription` before them).
    static func members(_ set: ChangeSet, _ record: FeedFilter.Record, includeValues: Bool, liveQuery: Bool,
                        to out: JSONGenerator) throws {
        try header(set, to: out)
        try out.string(ChangeMembers.inserted)
        try objects(record.inserted, includeValues: includeValues, to: out)
        try out.string(ChangeMembers.updated)
        try objects(record.updated, includeValues: includeValues, to: out)
        try out.string(ChangeMembers.deleted)
        try ids(record.deleted, to: out)
        if liveQuery {
            try out.string(ChangeMembers.removed)
            try ids(record.removed, to: out)
        }
    }

    /// The members every record of a commit starts with: `"seq"`, `"author"`, `"timestamp"`.
    static func header(_ set: ChangeSet, to out: JSONGenerator) throws {
        try out.string(ChangeMembers.seq)
        try out.integer(set.sequence)
        try out.string(ChangeMembers.author)
        if let author = set.author { try out.string(author) } else { try out.null() }
        try out.string(ChangeMembers.timestamp)
        try ValueForm.write(.date(set.timestamp), as: .date, to: out)
    }

    /// A record as `changes` answers it: `{"seq",…}`.
    static func record(_ set: ChangeSet, _ record: FeedFilter.Record, includeValues: Bool, to out: JSONGenerator) throws {
        try out.openObject()
        try members(set, record, includeValues: includeValues, liveQuery: false, to: out)
        try out.closeObject()
    }

    /// The line of a `changes` notification for `subscription`, `\n` included, around `members`
    /// (``CommitNotifications/members(_:filter:)``): one buffer for every connection that
    /// writes it.
    static func notificationLine(subscription: Int, members: [UInt8]) -> ByteBuffer {
        let number = String(subscription).utf8
        var line = allocator.buffer(capacity: notificationStart.count + number.count + 1 + members.count + notificationEnd.count)
        line.writeBytes(notificationStart)
        line.writeBytes(number)
        line.writeInteger(UInt8(ascii: ","))
        line.writeBytes(members)
        line.writeBytes(notificationEnd)
        return line
    }

    private static let allocator = ByteBufferAllocator()
    private static let notificationStart = Array(#"{"jsonrpc":"2.0","method":"changes","params":{"subscription":"#.utf8)
    private static let notificationEnd = Array("}}\n".utf8)

    /// The line of a `resync` notification (no `\n`).
    static func resync(subscription: Int, seq: Int64, reason: String) -> [UInt8] {
        let params = JSONValue.object([(ChangeMembers.subscription, .integer(Int64(subscription))),
                                       (ChangeMembers.seq, .integer(seq)), (ChangeMembers.reason, .string(reason))])
        return Array(#"{"jsonrpc":"2.0","method":"resync","params":"#.utf8) + Array(params.jsonText.utf8) + [UInt8(ascii: "}")]
    }

    private static func objects(_ snapshots: [ObjectSnapshot], includeValues: Bool, to out: JSONGenerator) throws {
        try out.openArray()
        for snapshot in snapshots {
            if includeValues {
                try WireObjectEncoder.write(snapshot, to: out)
            } else {
                try reference(snapshot, to: out)
            }
        }
        try out.closeArray()
    }

    /// `{"id":…,"entity":…,"version":n}`: an object of a subscription without values.
    static func reference(_ snapshot: ObjectSnapshot, to out: JSONGenerator) throws {
        try out.openObject()
        try out.string(WireObjectMembers.id)
        try WireObjectEncoder.writeURI(snapshot.objectID, to: out)
        try out.string(WireObjectMembers.entity)
        try out.string(snapshot.objectID.entityName)
        try out.string(WireObjectMembers.version)
        try out.integer(snapshot.version)
        try out.closeObject()
    }

    private static func ids(_ ids: [ObjectID], to out: JSONGenerator) throws {
        try out.openArray()
        for id in ids { try WireObjectEncoder.writeURI(id, to: out) }
        try out.closeArray()
    }
}
