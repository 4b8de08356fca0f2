import Foundation
import JSONCore
import GraphCore

/// Turns the events of a store file into snapshots as they arrive: a state machine over
/// the file's fixed shape (`docs/FILE_FORMAT.md`), with no tree in between.
///
/// Relationship values are kept as references (integers) while parsing, since they may
/// point forward, and resolved by ``ReferenceResolver`` once the whole file is read.
final class StoreFileDecoder: JSONEventHandler {
    enum State {
        case document, root, rootValue(RootKey)
        case metadata, metadataValue(MetadataKey)
        case stringMap(StringMap), stringMapValue(StringMap)
        case objects, objectsValue(Int)
        case objectList, object, objectValue(ObjectKey)
        case values, propertyValue(Int), references(Int)
        case done
    }

    enum RootKey { case format, formatVersion, metadata, objects }
    enum MetadataKey: String {
        case storeType, storeUUID, modelVersionHash, nextReference, commitSequence, entityVersionHashes, userInfo
    }
    enum StringMap { case entityVersionHashes, userInfo }
    enum ObjectKey: String { case ref, version, values }

    /// The file named in errors: the snapshot, or the journal while its records are read.
    var file: String
    let plan: ModelPlan
    unowned let store: AtomicStore
    // The hot fields are read and written for every event; exclusivity checks are off for
    // them: the decoder is used by one thread, and no access to them overlaps another.
    @exclusivity(unchecked) var state = State.document

    // Skipping a value of an unknown key: nesting depth, and the state to return to.
    @exclusivity(unchecked) var skipDepth = 0
    @exclusivity(unchecked) var afterSkip: State?
    /// The keys of each object open in a skipped value (nil for an array), for duplicates.
    var skippedKeys: [Set<String>?] = []
    /// The keys seen at the top level and in `metadata` (each read once per file).
    var rootKeys: Set<String> = []
    var metadataKeys: Set<String> = []
    /// The key of the `entityVersionHashes` or `userInfo` entry being read.
    var mapKey = ""

    // What the top level and the metadata said.
    var sawFormat = false, sawFormatVersion = false, sawMetadata = false, sawObjects = false
    var storeType: String?
    var storeUUID: String?
    var modelVersionHash: String?
    var entityVersionHashes: [String: String]?
    var userInfo: [String: String] = [:]
    var fileNextReference: Int64?
    /// The snapshot's `"commitSequence"`: the last commit it holds (0 when absent).
    var commitSequence: Int64 = 0
    var seenEntities: Set<String> = []

    // The object being read. `entity` is one of `plan`'s, which outlives the decoder.
    @exclusivity(unchecked) unowned(unsafe) var entity: EntityPlan?
    /// `entity`'s flat properties (read per value without reference counting).
    @exclusivity(unchecked) var flat: FlatProperties?
    @exclusivity(unchecked) var reference: Int64?
    @exclusivity(unchecked) var version: Int64?
    @exclusivity(unchecked) var values: [Value] = []
    @exclusivity(unchecked) var sawValues = false
    @exclusivity(unchecked) var seen: [Bool] = []
    @exclusivity(unchecked) var nextGuess = 0

    // What the parse produces.
    @exclusivity(unchecked) var nodes: [ObjectSnapshot] = []
    @exclusivity(unchecked) var nodeEntities: [Int32] = []
    @exclusivity(unchecked) var nodeReferences: [Int64] = []
    /// The store identifier the nodes' IDs were made with.
    @exclusivity(unchecked) var identifierOfNodes: String?
    /// While other threads decode ranges of the file (and read the store's identifier to make
    /// IDs), a `"storeUUID"` is kept here instead of being written to the store.
    var holdsStoreIdentifier = false
    var heldStoreIdentifier: String?
    /// The ranges decoded on other threads and appended (``append(_:)``).
    var rangesJoined = 0
    /// Makes the IDs of the entity of the objects before (a range holds objects of few entities).
    var idMaker: ObjectID.Maker?
    @exclusivity(unchecked) var toOne: [PendingReference] = []
    @exclusivity(unchecked) var toMany: [PendingList] = []
    @exclusivity(unchecked) var referencePool: [Int64] = []
    @exclusivity(unchecked) var maxReference: Int64 = 0
    /// The times of the load's phases (``LoadTrace``).
    var trace = LoadTrace()

    struct PendingReference {
        var target: Int64
        var node: Int32
        var property: Int32
    }

    struct PendingList {
        var node: Int32
        var property: Int32
        var start: Int
        var count: Int
    }

    /// The index of a property key for entities with many properties (by dictionary).
    private func slowPropertyIndex(_ key: UnsafeRawBufferPointer) -> Int? {
        guard let entity, entity.flat.count > 16 else { return nil }
        return entity.indexByName[key.string]
    }

    /// Makes room for as many objects as a file of this size can hold, so that the arrays do
    /// not grow (and copy) while parsing. Only memory that is used gets touched.
    func reserve(forFileSize size: Int) {
        let objects = min(size / 48, 1 << 28)  // an object takes at least ~48 bytes of JSON
        guard objects > 1024 else { return }
        nodes.reserveCapacity(objects)
        nodeEntities.reserveCapacity(objects)
        nodeReferences.reserveCapacity(objects)
        toOne.reserveCapacity(objects)
    }

    init(file: String, plan: ModelPlan, store: AtomicStore) {
        self.file = file
        self.plan = plan
        self.store = store
    }

    // MARK: - Skipping unknown keys

    @inline(__always)
    private func skipScalar() -> Bool {
        guard afterSkip != nil else { return false }
        if skipDepth == 0, let resume = afterSkip { state = resume; afterSkip = nil }
        return true
    }

    private func skip(thenReturnTo resume: State) {
        afterSkip = resume
        skipDepth = 0
    }

    @inline(__always)
    private func skipOpen() -> Bool {
        guard afterSkip != nil else { return false }
        skipDepth += 1
        return true
    }

    @inline(__always)
    private func skipClose() -> Bool {
        guard afterSkip != nil else { return false }
        skipDepth -= 1
        if skipDepth == 0, let resume = afterSkip { state = resume; afterSkip = nil }
        return true
    }

    // MARK: - Events

    func null() throws {
        if skipScalar() { return }
        try scalar(.null)
    }

    func bool(_ value: Bool) throws {
        if skipScalar() { return }
        try scalar(.bool(value))
    }

    func number(_ text: UnsafeRawBufferPointer) throws {
        if skipScalar() { return }
        switch state {
        case .propertyValue(let index):
            try decodeNumber(text, property: index)
            state = .values
        case .references(let index):
            guard let target = JSONNumberText.integer(text), target > 0 else {
                throw invalidValue(index, found: text.string)
            }
            referencePool.append(target)
        case .objectValue(let key) where key != .values:
            guard let number = JSONNumberText.integer(text), number > 0 else {
                throw JSONStoreError.invalidObject(file: file, entity: entity?.name ?? "", reference: reference,
                                                   reason: "\"\(key)\" must be a positive integer, found \(text.string)")
            }
            if key == .ref { reference = number; maxReference = max(maxReference, number) } else { version = number }
            state = .object
        case .rootValue(.formatVersion):
            guard JSONNumberText.integer(text) == StoreFileFormat.version else {
                throw JSONStoreError.unsupportedFormatVersion(file: file, found: text.string)
            }
            sawFormatVersion = true
            state = .root
        case .metadataValue(.nextReference):
            guard let number = JSONNumberText.integer(text), number > 0 else {
                throw JSONShapeError("\"metadata\".\"nextReference\" must be a positive integer, found \(text.string)")
            }
            fileNextReference = number
            state = .metadata
        case .metadataValue(.commitSequence):
            guard let number = JSONNumberText.integer(text), number >= 0 else {
                throw JSONShapeError("\"metadata\".\"commitSequence\" must be an integer of at least 0, found \(text.string)")
            }
            commitSequence = number
            state = .metadata
        default:
            try scalar(.number(text.string))
        }
    }

    func string(_ bytes: UnsafeRawBufferPointer) throws {
        if skipScalar() { return }
        switch state {
        case .propertyValue(let index):
            try decodeString(bytes, property: index)
            state = .values
        case .rootValue(.format):
            guard bytes.equals("graphcore-json-store") else {
                throw JSONStoreError.notAStoreFile(
                    file: file, reason: "\"format\" is \(bytes.quotedForMessage()), expected \"\(StoreFileFormat.name)\"")
            }
            sawFormat = true
            state = .root
        case .metadataValue(let key):
            let text = bytes.string
            switch key {
            case .storeType: storeType = text
            case .storeUUID:
                guard UUID(uuidString: text) != nil else {
                    throw JSONShapeError("\"metadata\".\"storeUUID\" is not a UUID: \(bytes.quotedForMessage())")
                }
                storeUUID = text
                if holdsStoreIdentifier { heldStoreIdentifier = text } else { store.metadata.storeIdentifier = text }
            case .modelVersionHash: modelVersionHash = text
            case .nextReference, .commitSequence, .entityVersionHashes, .userInfo: throw shapeError(found: bytes.quotedForMessage())
            }
            state = .metadata
        case .stringMapValue(let map):
            switch map {
            case .entityVersionHashes: entityVersionHashes?[mapKey] = bytes.string
            case .userInfo: userInfo[mapKey] = bytes.string
            }
            state = .stringMap(map)
        default:
            try scalar(.string(bytes.quotedForMessage()))
        }
    }

    /// A scalar where the state has no special case: a value of a property, or a shape error.
    private func scalar(_ found: Found) throws {
        switch state {
        case .propertyValue(let index):
            try decodeScalar(found, property: index)
            state = .values
        default:
            throw shapeError(found: found.text)
        }
    }

    func startObject() throws {
        if skipOpen() { skippedKeys.append([]); return }
        switch state {
        case .document: state = .root
        case .rootValue(.metadata): sawMetadata = true; state = .metadata
        case .rootValue(.objects): sawObjects = true; state = .objects
        case .metadataValue(.entityVersionHashes): entityVersionHashes = [:]; state = .stringMap(.entityVersionHashes)
        case .metadataValue(.userInfo): state = .stringMap(.userInfo)
        case .objectList: beginObject()
        case .objectValue(.values): sawValues = true; state = .values
        case .propertyValue(let index): throw invalidValue(index, found: "an object")
        default: throw shapeError(found: "an object")
        }
    }

    func key(_ bytes: UnsafeRawBufferPointer) throws {
        // Keys never arrive while skipping at depth 0, so a skip of nested maps just continues.
        if afterSkip != nil {
            if let last = skippedKeys.indices.last, skippedKeys[last]?.insert(bytes.string).inserted == false {
                throw JSONDuplicateKeyError(key: bytes.string)
            }
            return
        }
        switch state {
        case .values:
            guard let flat else { return }
            guard let index = flat.index(of: bytes, guess: nextGuess) ?? slowPropertyIndex(bytes) else {
                throw JSONStoreError.unknownProperty(file: file, entity: entity?.name ?? "", reference: reference, key: bytes.string)
            }
            if seen[index] { throw JSONDuplicateKeyError(key: bytes.string) }
            seen[index] = true
            nextGuess = index + 1
            state = .propertyValue(index)
        case .object:
            if bytes.equals("ref") {
                guard reference == nil else { throw JSONDuplicateKeyError(key: "ref") }
                state = .objectValue(.ref)
            } else if bytes.equals("version") {
                guard version == nil else { throw JSONDuplicateKeyError(key: "version") }
                state = .objectValue(.version)
            } else if bytes.equals("values") {
                guard !sawValues else { throw JSONDuplicateKeyError(key: "values") }
                state = .objectValue(.values)
            } else {
                throw JSONStoreError.invalidObject(file: file, entity: entity?.name ?? "", reference: reference,
                                                   reason: "unknown key \(bytes.quotedForMessage()) (expected \"ref\", \"version\", \"values\")")
            }
        case .root:
            guard rootKeys.insert(bytes.string).inserted else { throw JSONDuplicateKeyError(key: bytes.string) }
            if bytes.equals("format") {
                state = .rootValue(.format)
            } else if bytes.equals("formatVersion") {
                state = .rootValue(.formatVersion)
            } else if bytes.equals("metadata") {
                state = .rootValue(.metadata)
            } else if bytes.equals("objects") {
                state = .rootValue(.objects)
            } else {
                skip(thenReturnTo: .root)
            }
        case .metadata:
            guard metadataKeys.insert(bytes.string).inserted else { throw JSONDuplicateKeyError(key: bytes.string) }
            if bytes.equals("storeType") {
                state = .metadataValue(.storeType)
            } else if bytes.equals("storeUUID") {
                state = .metadataValue(.storeUUID)
            } else if bytes.equals("modelVersionHash") {
                state = .metadataValue(.modelVersionHash)
            } else if bytes.equals("nextReference") {
                state = .metadataValue(.nextReference)
            } else if bytes.equals("commitSequence") {
                state = .metadataValue(.commitSequence)
            } else if bytes.equals("entityVersionHashes") {
                state = .metadataValue(.entityVersionHashes)
            } else if bytes.equals("userInfo") {
                state = .metadataValue(.userInfo)
            } else {
                skip(thenReturnTo: .metadata)
            }
        case .stringMap(let map):
            mapKey = bytes.string
            let known = map == .userInfo ? userInfo[mapKey] != nil : entityVersionHashes?[mapKey] != nil
            if known { throw JSONDuplicateKeyError(key: mapKey) }
            state = .stringMapValue(map)
        case .objects:
            let name = bytes.string
            guard let entity = plan.entity(named: bytes) else {
                throw JSONStoreError.unknownEntity(file: file, entity: name)
            }
            guard !entity.entity.isAbstract else { throw JSONStoreError.abstractEntity(file: file, entity: name) }
            guard seenEntities.insert(name).inserted else { throw JSONDuplicateKeyError(key: name) }
            state = .objectsValue(entity.index)
        default:
            throw shapeError(found: "a key")
        }
    }

    func endObject() throws {
        if skipClose() { _ = skippedKeys.popLast(); return }
        switch state {
        case .values:
            state = .object
        case .object:
            try endOfObject()
            state = .objectList
        case .metadata:
            try endOfMetadata()
            state = .root
        case .stringMap:
            state = .metadata
        case .objects:
            state = .root
        case .root:
            try endOfDocument()
            state = .done
        default:
            throw shapeError(found: "the end of an object")
        }
    }

    func startArray() throws {
        if skipOpen() { skippedKeys.append(nil); return }
        switch state {
        case .objectsValue(let index):
            let entity = plan.entities[index]
            self.entity = entity
            flat = entity.flat
            if seen.count < entity.flat.count { seen = [Bool](repeating: false, count: entity.flat.count) }
            state = .objectList
        case .propertyValue(let index):
            guard let flat, flat.kinds[index] == .toMany else { throw invalidValue(index, found: "an array") }
            toMany.append(PendingList(node: Int32(nodes.count), property: Int32(index), start: referencePool.count, count: 0))
            state = .references(index)
        default:
            throw shapeError(found: "an array")
        }
    }

    func endArray() throws {
        if skipClose() { _ = skippedKeys.popLast(); return }
        switch state {
        case .references:
            if let last = toMany.indices.last { toMany[last].count = referencePool.count - toMany[last].start }
            state = .values
        case .objectList:
            state = .objects
        default:
            throw shapeError(found: "the end of an array")
        }
    }
}
