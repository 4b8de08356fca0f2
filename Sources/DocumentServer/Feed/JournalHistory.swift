import Foundation
import GraphCore
import JSONCore

/// Reads the history a server starts with back from a JSON store's journal records (the
/// history file's, then the journal's; `docs/FILE_FORMAT.md`): one ``ChangeSet`` per record,
/// in commit order, made from the same record the commit wrote.
///
/// Records carry objects as the snapshot does: relationships by reference. A reference is
/// named by the concrete entity of its object, taken from the records themselves, else from
/// the state now, else the relationship's destination. An object's state before a commit is
/// the one the previous record of it gave; for the first record of an object it is not known
/// (``ChangeSet/Change/before`` nil). A line that does not read as a record ends the history
/// read (what came before it is kept): history is a convenience, never a reason not to start.
enum JournalHistory {
    static func changeSets(from bytes: [UInt8], state: ReadState) -> [ChangeSet] {
        var records: [JSONValue] = []
        var last: Int64 = 0
        var start = 0
        while start < bytes.count, let newline = bytes[start...].firstIndex(of: 0x0A) {
            defer { start = newline + 1 }
            guard let record = try? bytes[start..<newline].withUnsafeBytes({ try JSONValue.parse($0) }),
                  case .number(let text)? = record["seq"], let seq = Int64(text) else { break }
            guard seq > last else { continue }  // a record in the history file and the journal both
            last = seq
            records.append(record)
        }
        var entities: [Int64: EntityDescription] = [:]
        for record in records {
            for key in ["inserted", "updated"] {
                guard case .object(let groups)? = record[key] else { continue }
                for (name, objects) in groups {
                    guard let entity = state.model.entity(named: name), case .array(let list) = objects else { continue }
                    for object in list { if let ref = reference(object["ref"]) { entities[ref] = entity } }
                }
            }
            if case .array(let deleted)? = record["deleted"] {
                for item in deleted {
                    if case .string(let name)? = item["entity"], let entity = state.model.entity(named: name),
                       let ref = reference(item["reference"]) { entities[ref] = entity }
                }
            }
        }
        let store = state.storeIdentifier
        func id(_ ref: Int64, destination: EntityDescription) -> ObjectID {
            if let entity = entities[ref] { return ObjectID(entity: entity, storeIdentifier: store, reference: .int(ref)) }
            let guess = ObjectID(entity: destination, storeIdentifier: store, reference: .int(ref))
            return state.canonical(guess) ?? guess
        }
        var known: [ObjectID: ObjectSnapshot] = [:]
        var sets: [ChangeSet] = []
        for record in records {
            guard case .number(let text)? = record["seq"], let seq = Int64(text) else { continue }
            var time = Date(timeIntervalSince1970: 0)
            if let json = record["time"], case .date(let date)? = ValueForm.value(json, as: .date) { time = date }
            var author: String?
            if case .string(let name)? = record["author"] { author = name }
            var changes: [ChangeSet.Change] = []
            for (key, kind) in [("inserted", ChangeSet.Kind.inserted), ("updated", .updated)] {
                guard case .object(let groups)? = record[key] else { continue }
                for (name, objects) in groups {
                    guard let entity = state.model.entity(named: name), case .array(let list) = objects else { continue }
                    for object in list {
                        guard let snapshot = snapshot(object, entity: entity, id: id) else { continue }
                        changes.append(ChangeSet.Change(id: snapshot.objectID, kind: kind,
                                                        before: kind == .inserted ? nil : known[snapshot.objectID], after: snapshot))
                        known[snapshot.objectID] = snapshot
                    }
                }
            }
            if case .array(let deleted)? = record["deleted"] {
                for item in deleted {
                    guard case .string(let name)? = item["entity"], let entity = state.model.entity(named: name),
                          let ref = reference(item["reference"]) else { continue }
                    let objectID = ObjectID(entity: entity, storeIdentifier: store, reference: .int(ref))
                    changes.append(ChangeSet.Change(id: objectID, kind: .deleted, before: known[objectID], after: nil))
                    known[objectID] = nil
                }
            }
            sets.append(ChangeSet(sequence: seq, author: author, timestamp: time, changes: changes, stateBefore: nil, stateAfter: nil))
        }
        return sets
    }

    private static func reference(_ json: JSONValue?) -> Int64? {
        guard case .number(let text)? = json else { return nil }
        return Int64(text)
    }

    /// An object of a record: `{"ref","version","values"}`, values as the snapshot writes them.
    private static func snapshot(_ object: JSONValue, entity: EntityDescription,
                                 id: (Int64, EntityDescription) -> ObjectID) -> ObjectSnapshot? {
        guard let ref = reference(object["ref"]), let version = reference(object["version"]) else { return nil }
        let values = object["values"]
        var decoded: [Value] = []
        for property in entity.properties {
            let json = values?[property.name] ?? .null
            switch property {
            case .attribute(let attribute):
                decoded.append(ValueForm.value(json, as: attribute.type) ?? .null)
            case .relationship(let relationship):
                guard let destination = entity.model?.entity(named: relationship.destination) else {
                    decoded.append(.null)
                    continue
                }
                if relationship.isToMany {
                    guard case .array(let refs) = json else {
                        decoded.append(.objects([]))
                        continue
                    }
                    decoded.append(.objects(refs.compactMap { reference($0) }.map { id($0, destination) }))
                } else {
                    decoded.append(reference(json).map { .object(id($0, destination)) } ?? .null)
                }
            }
        }
        return ObjectSnapshot(objectID: id(ref, entity), version: version, values: decoded)
    }
}
