import Foundation

/// The identity of an object: its entity, its store and the store's reference for it.
///
/// An `ObjectID` is a small immutable value, the only thing that crosses contexts, threads
/// and the network. Its URI form is `graph://<storeUUID>/<Entity>/<reference>` for a
/// saved object and `graph:///<Entity>/t<UUID>` for an object not saved yet (temporary).
///
/// Two IDs are equal when they name the same store and reference within the same entity
/// hierarchy: `graph://S/Animal/7` and `graph://S/Dog/7` are one object.
public struct ObjectID: Sendable, Hashable, CustomStringConvertible {
    // One allocation per object, shared by every value that refers to it, keeps an ID at 8
    // bytes inside attribute and relationship storage. An integer reference (the common case)
    // keeps the allocation at 32 bytes (a size class of its own: 40 would take 48): what every
    // ID of one entity in one store shares, its entity and its store, is one `Home` object
    // that the IDs point to. A string reference takes the subclass below.
    class Storage: @unchecked Sendable {
        // Sendable: every stored property is an immutable `let` of a Sendable type.
        let home: Home
        /// The integer reference (unused when `self` is a `StringStorage`). For a temporary ID
        /// made in this process, its number; one parsed from elsewhere keeps its "t<uuid>" string.
        let number: Int64

        init(home: Home, number: Int64) {
            self.home = home
            self.number = number
        }

        var entity: EntityDescription { home.entity }
        /// nil for a temporary ID.
        var store: StoreKey? { home.store }

        var reference: ReferenceObject { .int(number) }

        func hashReference(into hasher: inout Hasher) { hasher.combine(number) }

        static func make(entity: EntityDescription, store: StoreKey?, reference: ReferenceObject) -> Storage {
            make(home: Home.of(entity: entity, store: store), reference: reference)
        }

        static func make(home: Home, reference: ReferenceObject) -> Storage {
            switch reference {
            case .int(let number) where home.store == nil: return TemporaryStorage(home: home, number: number)
            case .int(let number): return Storage(home: home, number: number)
            case .string(let string): return StringStorage(home: home, string: string)
            }
        }
    }

    /// The entity and the store of IDs: one object for each pair, made once and kept for the
    /// process (there are as many as entities times stores opened), so that each ID holds one
    /// pointer for both.
    final class Home: @unchecked Sendable {
        // Sendable: every stored property is an immutable `let` of a Sendable type.
        let entity: EntityDescription
        /// nil for temporary IDs.
        let store: StoreKey?

        private init(entity: EntityDescription, store: StoreKey?) {
            self.entity = entity
            self.store = store
        }

        private struct Key: Hashable {
            let entity: ObjectIdentifier
            let store: ObjectIdentifier?
        }

        /// Kept for the process: a home holds its entity (and so its model) and its store key,
        /// which is interned for the process too, and no identifier is ever reused for another.
        private static let table = Locked<[Key: Home]>([:])

        /// The one home of `entity` in `store`.
        static func of(entity: EntityDescription, store: StoreKey?) -> Home {
            let key = Key(entity: ObjectIdentifier(entity), store: store.map(ObjectIdentifier.init))
            return table.withLock { table in
                if let home = table[key] { return home }
                let home = Home(entity: entity, store: store)
                table[key] = home
                return home
            }
        }
    }

    /// A temporary ID made in this process, which learns its permanent ID when saved.
    final class TemporaryStorage: Storage, @unchecked Sendable {
        // Safe to share: `permanent` is written once, by the context that inserted the object,
        // when its save assigns the permanent ID, and is read only by that same context (to
        // rewrite relationship values), so never from two isolation domains at once.
        var permanent: Storage?
    }

    final class StringStorage: Storage, @unchecked Sendable {
        let string: String
        /// The `number` of every string-referenced ID, so that most IDs are told apart from
        /// these without a dynamic cast.
        static let marker = Int64.min

        init(home: Home, string: String) {
            self.string = string
            super.init(home: home, number: StringStorage.marker)
        }

        override var reference: ReferenceObject { .string(string) }

        override func hashReference(into hasher: inout Hasher) { hasher.combine(string) }
    }

    let storage: Storage

    /// A permanent ID, as a store makes it.
    public init(entity: EntityDescription, storeIdentifier: String, reference: ReferenceObject) {
        storage = .make(entity: entity, store: StoreKey.interned(storeIdentifier), reference: reference)
    }

    /// A permanent ID for a store that keeps its key at hand (no interning lookup).
    init(entity: EntityDescription, store: StoreKey, reference: ReferenceObject) {
        storage = .make(entity: entity, store: store, reference: reference)
    }

    /// A new temporary ID for an object inserted but not yet saved.
    ///
    /// Temporary IDs are numbered within the process; their URI shows them as a UUID made of
    /// a random per-process prefix and the number, so they are unique across processes too.
    public static func temporary(for entity: EntityDescription) -> ObjectID {
        let number = temporaryCounter.withLock { counter -> UInt64 in counter &+= 1; return counter }
        return ObjectID(storage: TemporaryStorage(home: Home.of(entity: entity, store: nil), number: Int64(bitPattern: number)))
    }

    private init(storage: Storage) { self.storage = storage }

    /// A permanent ID of the entity and store that `home` stands for (a reader that keeps the
    /// home of the IDs before at hand: no lookup).
    init(home: Home, number: Int64) {
        storage = .make(home: home, reference: .int(number))
    }

    /// For a temporary ID whose object was given a permanent ID by its context: that ID.
    var forwardedPermanentID: ObjectID? {
        (storage as? TemporaryStorage)?.permanent.map(ObjectID.init(storage:))
    }

    /// Records, in a temporary ID, the permanent ID its object was given.
    func forward(to permanent: ObjectID) {
        (storage as? TemporaryStorage)?.permanent = permanent.storage
    }

    private static let temporaryCounter = Locked<UInt64>(0)
    private static let temporaryPrefix: UInt64 = UInt64.random(in: 0...UInt64.max)

    /// The entity of the object (its concrete entity, never an abstract one).
    public var entity: EntityDescription { storage.entity }
    /// The name of the object's entity.
    public var entityName: String { storage.entity.name }
    /// The UUID of the store that holds the object; nil for a temporary ID.
    public var storeIdentifier: String? { storage.store?.identifier }
    /// The store's reference for the object; for a temporary ID, its `t<UUID>` token.
    public var referenceObject: ReferenceObject {
        if storage.store == nil, case .int(let number) = storage.reference {
            return .string(Self.temporaryToken(UInt64(bitPattern: number)))
        }
        return storage.reference
    }
    /// Whether the object has not been saved yet.
    public var isTemporary: Bool { storage.store == nil }

    /// `graph://<storeUUID>/<Entity>/<reference>`, or `graph:///<Entity>/t<UUID>`.
    public var uriRepresentation: String {
        let reference: String
        switch referenceObject {
        case .int(let number):
            reference = String(number)  // digits and "-": nothing to encode
        case .string(let text) where text.utf8.allSatisfy(Self.isUnreservedASCII):
            reference = text
        case .string(let text):
            reference = text.addingPercentEncoding(withAllowedCharacters: Self.referenceCharacters) ?? ""
        }
        return "graph://\(storage.store?.identifier ?? "")/\(storage.entity.name)/\(reference)"
    }

    /// The ID's URI form, ``uriRepresentation``.
    public var description: String { uriRepresentation }

    /// Whether both IDs name the same object: the same entity hierarchy, store and reference.
    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        if lhs.storage === rhs.storage { return true }
        guard lhs.storage.number == rhs.storage.number, lhs.storage.reference == rhs.storage.reference,
              lhs.storage.store === rhs.storage.store
                || lhs.storage.store?.identifier == rhs.storage.store?.identifier,
              lhs.storage.entity.rootNameHash == rhs.storage.entity.rootNameHash
        else { return false }
        return lhs.storage.entity === rhs.storage.entity || lhs.storage.entity.root.name == rhs.storage.entity.root.name
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.entity.rootNameHash)
        storage.hashReference(into: &hasher)
    }

    /// A byte that stands for itself in a URI path: ASCII letters, digits, `-._~`.
    private static func isUnreservedASCII(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static let referenceCharacters: CharacterSet = {
        var set = CharacterSet.alphanumerics
        set.insert(charactersIn: "-._~")
        return set
    }()

    /// `t` and a UUID whose first half is this process's prefix and second half the number.
    private static func temporaryToken(_ number: UInt64) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 {
            bytes[i] = UInt8(truncatingIfNeeded: temporaryPrefix >> UInt64(56 - i * 8))
            bytes[8 + i] = UInt8(truncatingIfNeeded: number >> UInt64(56 - i * 8))
        }
        let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        return "t" + uuid.uuidString.lowercased()
    }

    /// The storage reference of a parsed temporary token: a number when this process made it.
    private static func temporaryReference(_ uuid: UUID) -> ReferenceObject {
        let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
        let prefix = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        if prefix == temporaryPrefix {
            let number = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return .int(Int64(bitPattern: number))
        }
        return .string("t" + uuid.uuidString.lowercased())
    }

    /// Parses an ID from its URI form, resolving the entity in `model`.
    ///
    /// - Throws: ``GraphError/invalidObjectURI(_:reason:)`` naming what is wrong.
    public init(uri: String, model: ObjectModel) throws(GraphError) {
        let prefix = "graph://"
        guard uri.hasPrefix(prefix) else {
            throw .invalidObjectURI(uri, reason: "it does not start with 'graph://'")
        }
        let parts = Self.uriParts(uri, after: prefix)
        guard parts.count == 3 else {
            throw .invalidObjectURI(uri, reason: "expected graph://<store>/<Entity>/<reference>")
        }
        let store = String(parts[0])
        let entityName = String(parts[1])
        guard let entity = model.entitiesByName[entityName] else {
            throw .invalidObjectURI(uri, reason: "the model has no entity '\(entityName)'")
        }
        let encoded = parts[2]
        // `utf8.contains`: Foundation's `contains(_: StringProtocol)` costs a CFString search on every ID parsed.
        guard let rawReference = encoded.utf8.contains(UInt8(ascii: "%")) ? String(encoded).removingPercentEncoding : String(encoded),
              !rawReference.isEmpty else {
            throw .invalidObjectURI(uri, reason: "the reference is empty or badly percent-encoded")
        }
        if store.isEmpty {
            guard rawReference.hasPrefix("t"), let uuid = UUID(uuidString: String(rawReference.dropFirst())) else {
                throw .invalidObjectURI(uri, reason: "a temporary ID's reference must be 't' followed by a UUID")
            }
            storage = .make(entity: entity, store: nil, reference: Self.temporaryReference(uuid))
        } else {
            storage = .make(entity: entity, store: StoreKey.interned(store),
                            reference: ReferenceObject(pathComponent: rawReference))
        }
    }
}

extension ObjectID {
    /// The parts between the `/`s after `prefix` (which `uri` starts with). An ASCII URI (the usual one) is cut at its `/` bytes, without splitting by
    /// characters (which cost more than the rest of a `get`); any other is split by characters.
    fileprivate static func uriParts(_ uri: String, after prefix: String) -> [Substring] {
        let utf8 = uri.utf8
        guard utf8.allSatisfy({ $0 < 0x80 }) else {
            return uri.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        }
        var parts: [Substring] = []
        parts.reserveCapacity(3)
        var start = utf8.index(utf8.startIndex, offsetBy: prefix.utf8.count)
        while let slash = utf8[start...].firstIndex(of: UInt8(ascii: "/")) {
            parts.append(uri[start..<slash])
            start = utf8.index(after: slash)
            if parts.count > 3 { return parts }
        }
        parts.append(uri[start...])
        return parts
    }
}

/// A store's identifier, shared by all IDs of the store (8 bytes in each instead of a string).
final class StoreKey: Sendable {
    let identifier: String

    private init(_ identifier: String) { self.identifier = identifier }

    private static let table = Locked<[String: StoreKey]>([:])

    /// The one key for an identifier.
    static func interned(_ identifier: String) -> StoreKey {
        table.withLock { table in
            if let key = table[identifier] { return key }
            let key = StoreKey(identifier)
            table[identifier] = key
            return key
        }
    }
}

extension ObjectID {
    /// Makes the permanent IDs of one entity in one store with integer references, for a
    /// loader that makes many: the part they share is looked up once, not for each ID.
    public struct Maker: Sendable {
        let home: Home

        /// The entity of the IDs made.
        public var entity: EntityDescription { home.entity }

        /// The ID of the object with reference `number`.
        public func id(_ number: Int64) -> ObjectID {
            ObjectID(home: home, number: number)
        }
    }
}
