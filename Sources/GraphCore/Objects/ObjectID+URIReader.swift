/// Reads object URIs one after another against one model, as ``ObjectID/init(uri:model:)``
/// does, for a caller that reads many (a server connection reading the IDs of its requests).
///
/// The usual URI, `graph://<store>/<Entity>/<n>` in ASCII with a decimal integer reference,
/// is read straight from its bytes: the store's key, the entity and the IDs' home (both in
/// one object) of the URI before are remembered, so that none is looked up again (a store key
/// and a home are otherwise interned under locks shared by every thread). Any other URI (a string or percent-encoded reference, a
/// temporary ID, non-ASCII text, an unknown entity, a malformed URI) goes to
/// ``ObjectID/init(uri:model:)``: the IDs made, and the errors thrown, are exactly its own.
///
/// ```swift
/// var reader = ObjectIDReader(model: model)
/// let id = try reader.objectID(uri: "graph://4F2A…/Song/17")
/// ```
///
/// A value for one thread: each connection keeps its own.
public struct ObjectIDReader {
    /// The model the URIs' entities are resolved in.
    public let model: ObjectModel
    /// The store part and key of the last URI read.
    private var lastStore: (identifier: [UInt8], key: StoreKey)?
    /// The entity part and entity of the last URI read.
    private var lastEntity: (name: [UInt8], entity: EntityDescription)?
    /// The home (entity and store) of the last ID read, which the next one most often shares.
    private var lastHome: ObjectID.Home?

    /// A reader for URIs of `model`'s entities.
    public init(model: ObjectModel) {
        self.model = model
    }

    /// The ID `uri` names, as ``ObjectID/init(uri:model:)`` reads it.
    ///
    /// - Throws: ``GraphError/invalidObjectURI(_:reason:)`` naming what is wrong.
    public mutating func objectID(uri: String) throws(GraphError) -> ObjectID {
        let read = uri.utf8.withContiguousStorageIfAvailable { directID(UnsafeRawBufferPointer($0)) }
        if let read, let id = read { return id }
        return try ObjectID(uri: uri, model: model)
    }

    /// The ID the URI in `utf8` (valid UTF-8, without quotes or escapes) names, as
    /// ``ObjectID/init(uri:model:)`` reads the same text.
    ///
    /// - Throws: ``GraphError/invalidObjectURI(_:reason:)`` naming what is wrong.
    public mutating func objectID(utf8: UnsafeRawBufferPointer) throws(GraphError) -> ObjectID {
        if let id = directID(utf8) { return id }
        return try ObjectID(uri: String(decoding: utf8, as: UTF8.self), model: model)
    }

    private static let prefix = Array("graph://".utf8)

    /// The ID of an ASCII `graph://<store>/<Entity>/<n>` whose entity the model has and whose
    /// reference is the decimal text of an integer as `String(n)` writes it (what
    /// ``ReferenceObject`` reads as `.int`); nil for any other text.
    private mutating func directID(_ bytes: UnsafeRawBufferPointer) -> ObjectID? {
        let prefix = Self.prefix
        guard bytes.count > prefix.count else { return nil }
        for index in 0..<prefix.count where bytes[index] != prefix[index] { return nil }
        // The three parts, cut at '/': store, entity, reference. Non-ASCII text goes the general
        // way (it splits by characters, and a '/' with a combining mark is not a separator).
        var slashes = (0, 0)
        var found = 0
        for index in prefix.count..<bytes.count {
            let byte = bytes[index]
            guard byte < 0x80 else { return nil }
            if byte == UInt8(ascii: "/") {
                found += 1
                if found == 1 { slashes.0 = index } else if found == 2 { slashes.1 = index } else { return nil }
            }
        }
        guard found == 2 else { return nil }
        let storeRange = prefix.count..<slashes.0
        let entityRange = (slashes.0 + 1)..<slashes.1
        let referenceRange = (slashes.1 + 1)..<bytes.count
        // An empty store is a temporary ID's.
        guard !storeRange.isEmpty, !entityRange.isEmpty, let number = Self.canonicalInteger(bytes, referenceRange) else { return nil }
        let entity: EntityDescription
        if let lastEntity, lastEntity.name.elementsEqual(bytes[entityRange]) {
            entity = lastEntity.entity
        } else {
            guard let named = model.entitiesByName[String(decoding: bytes[entityRange], as: UTF8.self)] else { return nil }
            lastEntity = (Array(bytes[entityRange]), named)
            entity = named
        }
        let store: StoreKey
        if let lastStore, lastStore.identifier.elementsEqual(bytes[storeRange]) {
            store = lastStore.key
        } else {
            store = StoreKey.interned(String(decoding: bytes[storeRange], as: UTF8.self))
            lastStore = (Array(bytes[storeRange]), store)
        }
        if let lastHome, lastHome.entity === entity, lastHome.store === store {
            return ObjectID(home: lastHome, number: number)
        }
        let home = ObjectID.Home.of(entity: entity, store: store)
        lastHome = home
        return ObjectID(home: home, number: number)
    }

    /// The integer whose `String(n)` is exactly these bytes: digits without a leading zero
    /// (or `0` alone), within `Int64`. Negative references take the general way.
    private static func canonicalInteger(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int64? {
        guard !range.isEmpty, range.count <= 19 else { return nil }
        if bytes[range.lowerBound] == UInt8(ascii: "0") && range.count > 1 { return nil }
        var value: Int64 = 0
        for index in range {
            let byte = bytes[index]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = shifted.addingReportingOverflow(Int64(byte &- UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }
}
