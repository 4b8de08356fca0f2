import DocumentProtocol
import Foundation
import JSONCore
import NIOConcurrencyHelpers

/// The requests slower than the server's threshold (`--slow-request-ms`), newest last, at most
/// ``capacity``: what the `slowlog` method answers (as Redis' `SLOWLOG`). Taken only for a slow
/// request, so its lock is never on the path of the others.
final class SlowLog: Sendable {
    /// One slow request.
    struct Entry: Sendable {
        /// Numbers the entries since the server started (1, 2, ...): a reader sees which it has seen.
        let id: Int
        /// When it was answered, in milliseconds since 1970.
        let timestamp: Int64
        let method: String
        /// The entity it named (a fetch's, a subscription's; a get's first ID's; a save's, comma separated), or nil.
        let entity: String?
        /// Its predicate, cut to ``SlowLog/predicateLimit`` characters, or nil.
        let predicate: String?
        /// How long it took, in milliseconds.
        let milliseconds: Double
    }

    /// The most entries kept: the oldest goes first.
    static let capacity = 128
    /// The longest predicate kept, in characters.
    static let predicateLimit = 1000

    private struct Ring {
        var entries: [Entry] = []
        var next = 0
        var total = 0
    }

    private let ring = NIOLockedValueBox(Ring())
    /// The threshold, in milliseconds.
    let thresholdMilliseconds: Int

    init(thresholdMilliseconds: Int) {
        self.thresholdMilliseconds = thresholdMilliseconds
    }

    /// Keeps an entry for a request of `method` that took `milliseconds`; its entity and predicate from `params`.
    @discardableResult
    func add(method: String, params: JSONValue?, milliseconds: Double) -> Entry {
        let (entity, predicate) = Self.subject(of: method, params: params)
        let timestamp = Int64(Date().timeIntervalSince1970 * 1000)
        return ring.withLockedValue { ring in
            ring.total += 1
            let entry = Entry(id: ring.total, timestamp: timestamp, method: method, entity: entity,
                              predicate: predicate.map { String($0.prefix(Self.predicateLimit)) }, milliseconds: milliseconds)
            if ring.entries.count < Self.capacity {
                ring.entries.append(entry)
            } else {
                ring.entries[ring.next] = entry
            }
            ring.next = (ring.next + 1) % Self.capacity
            return entry
        }
    }

    /// The entries, oldest first, and how many slow requests there were in all; `reset` empties the ring.
    func entries(reset: Bool = false) -> (entries: [Entry], total: Int) {
        ring.withLockedValue { ring in
            let ordered = ring.entries.count < Self.capacity
                ? ring.entries : Array(ring.entries[ring.next...] + ring.entries[..<ring.next])
            if reset {
                ring.entries = []
                ring.next = 0
            }
            return (ordered, ring.total)
        }
    }

    /// The entity and predicate a request names, read from its parameters: `entity` and
    /// `predicate` members (fetch, subscribe, changes), a get's first ID's entity, a save's entities.
    static func subject(of method: String, params: JSONValue?) -> (entity: String?, predicate: String?) {
        guard case .object(let members)? = params else { return (nil, nil) }
        func member(_ name: String) -> JSONValue? { members.last(where: { $0.key == name })?.value }
        var entity: String?
        var predicate: String?
        if case .string(let text)? = member("entity") { entity = text }
        if case .string(let text)? = member("predicate") { predicate = text }
        if entity == nil, case .array(let ids)? = member(GetMembers.ids), case .string(let first)? = ids.first {
            // graph://<store>/<Entity>/<reference>
            let parts = first.split(separator: "/", omittingEmptySubsequences: false)
            if parts.count >= 5 { entity = String(parts[parts.count - 2]) }
        }
        if entity == nil, method == ProtocolMethod.save.rawValue {
            var names: [String] = []
            for key in [SaveMembers.insert, SaveMembers.update] {
                guard case .array(let objects)? = member(key) else { continue }
                for case .object(let object) in objects {
                    if case .string(let name)? = object.last(where: { $0.key == WireObjectMembers.entity })?.value, !names.contains(name) {
                        names.append(name)
                    }
                }
            }
            if !names.isEmpty { entity = names.joined(separator: ",") }
        }
        return (entity, predicate)
    }
}

extension SlowLog.Entry {
    /// The entry as the `slowlog` method answers it.
    var json: JSONValue {
        .object([
            ("id", .integer(Int64(id))), ("timestamp", .integer(timestamp)), ("method", .string(method)),
            ("entity", entity.map { .string($0) } ?? .null), ("predicate", predicate.map { .string($0) } ?? .null),
            ("milliseconds", .number(String(format: "%.3f", milliseconds))),
        ])
    }
}
