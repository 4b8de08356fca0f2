import Foundation
import JSONCore
import GraphCore

/// Reads the events of one journal record (`docs/FILE_FORMAT.md`, "The journal"). The
/// objects of `"inserted"` and `"updated"` go straight into the snapshot's
/// ``StoreFileDecoder`` (as if they were more `"objects"`), and what the record does to them
/// is written down in a ``JournalReplay``, applied once every record is read.
///
/// `"seq"` must be the record's first key: a record at or below the snapshot's
/// `"commitSequence"` is then skipped without building its objects.
///
/// The schema is strict: every required key (`seq`, `time`, `nextReference`, `inserted`,
/// `updated`, `deleted`, and `crc` in a version 2 journal), no other key than those and
/// `author`, each value of its type (`time` a date, `author` a string, the objects as the
/// snapshot's, `deleted` a list of `{"entity","reference"}`).
final class JournalRecordDecoder: JSONEventHandler {
    private enum State {
        case start, key, value(Key), deletedList, deletedItem, deletedValue(DeletedKey), forwarding, skipping, done
    }
    private enum Key {
        case seq, time, author, nextReference, inserted, updated, deleted, crc

        var bit: UInt8 {
            switch self {
            case .seq: 0
            case .time: 1
            case .author: 2
            case .nextReference: 3
            case .inserted: 4
            case .updated: 5
            case .deleted: 6
            case .crc: 7
            }
        }

        var name: String {
            switch self {
            case .seq: "seq"
            case .time: "time"
            case .author: "author"
            case .nextReference: "nextReference"
            case .inserted: "inserted"
            case .updated: "updated"
            case .deleted: "deleted"
            case .crc: "crc"
            }
        }

        /// The keys every record has (`crc` only in a version 2 journal).
        static let required: [Key] = [.seq, .time, .nextReference, .inserted, .updated, .deleted]
    }
    private enum DeletedKey { case entity, reference }

    private let decoder: StoreFileDecoder
    private let replay: JournalReplay
    /// Records at or below this sequence are skipped (already in the snapshot).
    private let baseSequence: Int64
    private var state = State.start
    /// The known keys seen in this record (bit by `Key`), and how many keys in all.
    private var seenKeys: UInt8 = 0
    private var keyCount = 0
    /// Nesting depth of a value being forwarded or skipped.
    private var depth = 0
    private var afterNested = State.key
    private var forwardedKey = Key.inserted
    private var nodesBefore = 0
    private var deletedEntity: Int32?
    private var deletedReference: Int64?

    /// Whether the record must end with `"crc"` (a version 2 journal; ``JournalFormat``).
    var checksum = false
    /// The record's `"seq"`, once read; whether it is skipped.
    private(set) var sequence: Int64?
    private(set) var isSkipped = false
    private(set) var nextReference: Int64?
    /// Whether the record's object has ended (nothing but whitespace may follow).
    var isDone: Bool {
        if case .done = state { return true }
        return false
    }

    init(decoder: StoreFileDecoder, replay: JournalReplay, baseSequence: Int64) {
        self.decoder = decoder
        self.replay = replay
        self.baseSequence = baseSequence
    }

    /// Makes the decoder ready for the next record (one decoder reads every record).
    func reset() {
        state = .start
        seenKeys = 0
        keyCount = 0
        depth = 0
        sequence = nil
        isSkipped = false
        nextReference = nil
    }

    private func shape(_ reason: String) -> JSONShapeError { JSONShapeError(reason) }

    // MARK: - Nesting

    /// Passes an event on to the store decoder (or drops it when skipping); true when taken.
    private func nested(_ delta: Int, _ event: () throws -> Void) throws -> Bool {
        switch state {
        case .forwarding:
            try event()
        case .skipping:
            break
        default:
            return false
        }
        depth += delta
        if depth == 0 { try endOfNested() }
        return true
    }

    private func endOfNested() throws {
        if case .forwarding = state {
            let range = nodesBefore..<decoder.nodes.count
            if forwardedKey == .inserted { replay.inserted(range) } else { replay.updated(range) }
        }
        state = afterNested
    }

    private func beginNested(forward: Bool) {
        depth = 0
        afterNested = .key
        if forward && !isSkipped {
            decoder.state = .rootValue(.objects)
            decoder.seenEntities = []
            nodesBefore = decoder.nodes.count
            state = .forwarding
        } else {
            state = .skipping
        }
    }

    // MARK: - Events

    func null() throws {
        if try nested(0, { try decoder.null() }) { return }
        if case .value(.author) = state { state = .key; return }
        try scalar("null")
    }

    func bool(_ value: Bool) throws {
        if try nested(0, { try decoder.bool(value) }) { return }
        try scalar(value ? "true" : "false")
    }

    func number(_ text: UnsafeRawBufferPointer) throws {
        if try nested(0, { try decoder.number(text) }) { return }
        switch state {
        case .value(.seq):
            guard let number = JSONNumberText.integer(text), number > 0 else {
                throw shape("\"seq\" must be a positive integer, found \(text.string)")
            }
            sequence = number
            isSkipped = number <= baseSequence
            state = .key
        case .value(.nextReference):
            guard let number = JSONNumberText.integer(text), number > 0 else {
                throw shape("\"nextReference\" must be a positive integer, found \(text.string)")
            }
            nextReference = number
            state = .key
        case .deletedValue(.reference):
            guard let number = JSONNumberText.integer(text), number > 0 else {
                throw shape("a deleted object's \"reference\" must be a positive integer, found \(text.string)")
            }
            deletedReference = number
            state = .deletedItem
        default:
            try scalar(text.string)
        }
    }

    func string(_ bytes: UnsafeRawBufferPointer) throws {
        if try nested(0, { try decoder.string(bytes) }) { return }
        switch state {
        case .value(.time):
            guard ISO8601.date(utf8: bytes) != nil else {
                throw shape("\"time\" must be a date (ISO 8601, as \"2026-11-24T22:50:01.123Z\"), found \(bytes.quotedForMessage())")
            }
            state = .key
        case .value(.author), .value(.crc):
            state = .key
        case .deletedValue(.entity):
            guard let entity = decoder.plan.entity(named: bytes) else {
                throw JSONStoreError.unknownEntity(file: decoder.file, entity: bytes.string)
            }
            guard !entity.entity.isAbstract else { throw JSONStoreError.abstractEntity(file: decoder.file, entity: bytes.string) }
            deletedEntity = Int32(entity.index)
            state = .deletedItem
        default:
            try scalar(bytes.quotedForMessage())
        }
    }

    private func scalar(_ found: String) throws {
        if case .value(let key) = state {
            throw shape("\"\(key.name)\" must be \(Self.expectation(key)), found \(found)")
        }
        throw shape("unexpected \(found) in a journal record")
    }

    private static func expectation(_ key: Key) -> String {
        switch key {
        case .seq, .nextReference: "a positive integer"
        case .time: "a date string"
        case .author: "a string"
        case .inserted, .updated: "an object of objects by entity"
        case .deleted: "an array of {\"entity\",\"reference\"}"
        case .crc: "a string of 8 hex digits"
        }
    }

    func startObject() throws {
        if try nested(1, { try decoder.startObject() }) { return }
        switch state {
        case .start: state = .key
        case .value(let key) where key == .inserted || key == .updated:
            forwardedKey = key
            guard sequence != nil else { throw shape("\"seq\" must be the first key of a journal record") }
            beginNested(forward: true)
            try _ = nested(1, { try decoder.startObject() })
        case .deletedList:
            deletedEntity = nil
            deletedReference = nil
            state = .deletedItem
        default: throw shape("unexpected object in a journal record")
        }
    }

    func key(_ bytes: UnsafeRawBufferPointer) throws {
        if try nested(0, { try decoder.key(bytes) }) { return }
        switch state {
        case .key:
            let key: Key
            if bytes.equals("seq") { key = .seq }
            else if bytes.equals("time") { key = .time }
            else if bytes.equals("author") { key = .author }
            else if bytes.equals("nextReference") { key = .nextReference }
            else if bytes.equals("inserted") { key = .inserted }
            else if bytes.equals("updated") { key = .updated }
            else if bytes.equals("deleted") { key = .deleted }
            else if checksum, bytes.equals("crc") { key = .crc }
            else {
                throw shape("unknown key \(bytes.quotedForMessage()) in a journal record (its keys are seq, time, author, "
                            + "nextReference, inserted, updated, deleted\(checksum ? " and crc" : ""))")
            }
            keyCount += 1
            if keyCount == 1, key != .seq { throw shape("\"seq\" must be the first key of a journal record") }
            let bit: UInt8 = 1 << key.bit
            if seenKeys & bit != 0 { throw JSONDuplicateKeyError(key: bytes.string) }
            seenKeys |= bit
            state = .value(key)
        case .deletedItem:
            if bytes.equals("entity") {
                guard deletedEntity == nil else { throw JSONDuplicateKeyError(key: "entity") }
                state = .deletedValue(.entity)
            } else if bytes.equals("reference") {
                guard deletedReference == nil else { throw JSONDuplicateKeyError(key: "reference") }
                state = .deletedValue(.reference)
            } else {
                throw shape("a deleted object has \"entity\" and \"reference\", not \(bytes.quotedForMessage())")
            }
        default: throw shape("unexpected key in a journal record")
        }
    }

    func endObject() throws {
        if try nested(-1, { try decoder.endObject() }) { return }
        switch state {
        case .key:
            guard sequence != nil else { throw shape("a journal record has no \"seq\"") }
            let missing = (Key.required + (checksum ? [Key.crc] : [])).filter { seenKeys & (1 << $0.bit) == 0 }
            guard missing.isEmpty else {
                throw shape("the record lacks " + missing.map { "\"\($0.name)\"" }.joined(separator: ", ")
                            + " (a journal record has seq, time, nextReference, inserted, updated and deleted)")
            }
            state = .done
        case .deletedItem:
            guard let deletedEntity, let deletedReference else {
                throw shape("a deleted object needs \"entity\" and \"reference\"")
            }
            if !isSkipped { replay.deleted(entity: deletedEntity, reference: deletedReference) }
            state = .deletedList
        default: throw shape("unexpected end of object in a journal record")
        }
    }

    func startArray() throws {
        if try nested(1, { try decoder.startArray() }) { return }
        switch state {
        case .value(.deleted): state = .deletedList
        default: throw shape("unexpected array in a journal record")
        }
    }

    func endArray() throws {
        if try nested(-1, { try decoder.endArray() }) { return }
        switch state {
        case .deletedList: state = .key
        default: throw shape("unexpected end of array in a journal record")
        }
    }
}
