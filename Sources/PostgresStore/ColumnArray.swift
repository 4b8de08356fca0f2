import Foundation
import GraphCore
import NIOCore
import PostgresNIO

/// The values of one column for many rows, bound as one array parameter and read back with
/// `unnest(…)`: a statement over thousands of rows then binds one parameter per column, not
/// one per cell, and PostgreSQL parses and plans a statement of a few parameters instead of a
/// `VALUES` list of thousands of rows.
///
/// The elements are written in PostgreSQL's binary array format as they are appended, NULL
/// elements included (postgres-nio's own array encoding has no NULL elements).
///
/// ```swift
/// var plays = ColumnArray(.int8)
/// plays.append(.int(12), entity: "Song", key: "plays")
/// plays.append(.null, entity: "Song", key: "plays")
/// statement.text = "… unnest(\(statement.parameter(plays))) …"
/// ```
struct ColumnArray: PostgresDynamicTypeEncodable {
    /// The element types a column is sent as.
    enum Element {
        case int8, float8, text, bool, bytea, uuid
        /// Text cast to `numeric` in the statement (``cast``): a decimal is sent as its digits.
        case numericText

        var oid: PostgresDataType {
            switch self {
            case .int8: .int8
            case .float8: .float8
            case .text, .numericText: .text
            case .bool: .bool
            case .bytea: .bytea
            case .uuid: .uuid
            }
        }

        var arrayOID: PostgresDataType {
            switch self {
            case .int8: .int8Array
            case .float8: .float8Array
            case .text, .numericText: .textArray
            case .bool: .boolArray
            case .bytea: .byteaArray
            case .uuid: .uuidArray
            }
        }

        /// The bytes of one element's value when it has a fixed size (a guess for the others).
        var fixedSize: Int {
            switch self {
            case .int8, .float8: 8
            case .bool: 1
            case .uuid: 16
            case .text, .numericText, .bytea: 16
            }
        }

        /// The element type of a column of this attribute type (nil: a to-one reference).
        init(_ type: AttributeType?) {
            switch type {
            case nil, .int16?, .int32?, .int64?: self = .int8
            case .double?, .float?, .date?: self = .float8
            case .decimal?: self = .numericText
            case .string?, .uri?: self = .text
            case .bool?: self = .bool
            case .binary?: self = .bytea
            case .uuid?: self = .uuid
            }
        }
    }

    let element: Element
    private(set) var count = 0
    private var hasNull = false
    private var elements = ByteBuffer()

    init(_ element: Element) { self.element = element }

    /// An empty column with room for `capacity` elements of a fixed size (text and bytes may
    /// need more: the buffer grows as they are appended).
    init(_ element: Element, capacity: Int) {
        self.element = element
        // Bounded: a statement holds at most ``PostgresStore/rowsPerStatement`` rows.
        elements.reserveCapacity(min(max(capacity, 0), 1 << 20) * (element.fixedSize + 4))
    }

    /// The cast that turns the bound parameter into the column's array type in SQL.
    var cast: String { element == .numericText ? "::text[]::numeric[]" : "" }

    var psqlType: PostgresDataType { element.arrayOID }
    var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeInteger(Int32(count == 0 ? 0 : 1))  // dimensions
        byteBuffer.writeInteger(Int32(hasNull ? 1 : 0))
        byteBuffer.writeInteger(Int32(bitPattern: element.oid.rawValue))
        // At most ``PostgresStore/rowsPerStatement`` elements: a statement's rows are cut there.
        guard count > 0 else { return }
        byteBuffer.writeInteger(Int32(clamping: count))
        byteBuffer.writeInteger(Int32(1))  // lower bound
        var elements = elements
        byteBuffer.writeBuffer(&elements)
    }

    mutating func appendNull() {
        elements.writeInteger(Int32(-1))
        hasNull = true
        count += 1
    }

    mutating func append(_ value: Int64) {
        elements.writeInteger(Int32(8))
        elements.writeInteger(value)
        count += 1
    }

    /// Appends a graph value as the column's element type.
    ///
    /// - Throws: ``PostgresStoreError/unreadableValue(entity:key:reason:)`` for a value of another
    ///   kind than the column holds, or an object ID that is not one of this store's integer references.
    mutating func append(_ value: Value, entity: String, key: String) throws {
        switch (element, value) {
        case (_, .null): appendNull()
        case (.int8, .int(let i)): append(i)
        case (.int8, .object(let id)):
            guard case .int(let reference) = id.referenceObject, !id.isTemporary else {
                throw PostgresStoreError.unreadableValue(entity: entity, key: key, reason: "\(id.uriRepresentation) is not an object of a PostgreSQL store")
            }
            append(reference)
        case (.float8, .double(let d)): appendFloat(d)
        case (.float8, .int(let i)): appendFloat(Double(i))
        case (.float8, .date(let d)): appendFloat(d.timeIntervalSinceReferenceDate)
        case (.numericText, .decimal(let d)): try appendText(d.isNaN ? "NaN" : d.description, entity: entity, key: key)
        case (.numericText, .int(let i)): try appendText(String(i), entity: entity, key: key)
        case (.text, .string(let s)): try appendText(s, entity: entity, key: key)
        case (.text, .uri(let u)): try appendText(u.absoluteString, entity: entity, key: key)
        case (.bool, .bool(let b)):
            elements.writeInteger(Int32(1))
            elements.writeInteger(UInt8(b ? 1 : 0))
            count += 1
        case (.bytea, .binary(let data)):
            guard let length = Int32(exactly: data.count) else {
                throw PostgresStoreError.unreadableValue(entity: entity, key: key, reason: "\(data.count) bytes are more than a PostgreSQL value holds")
            }
            elements.writeInteger(length)
            elements.writeBytes(data)
            count += 1
        case (.uuid, .uuid(let u)):
            elements.writeInteger(Int32(16))
            withUnsafeBytes(of: u.uuid) { _ = elements.writeBytes($0) }
            count += 1
        default:
            throw PostgresStoreError.unreadableValue(entity: entity, key: key, reason: "a \(value.kindName) value where its column holds \(element.arrayOID)")
        }
    }

    private mutating func appendFloat(_ value: Double) {
        elements.writeInteger(Int32(8))
        elements.writeInteger(value.bitPattern)
        count += 1
    }

    private mutating func appendText(_ text: String, entity: String, key: String) throws {
        guard let length = Int32(exactly: text.utf8.count) else {
            throw PostgresStoreError.unreadableValue(entity: entity, key: key, reason: "\(text.utf8.count) bytes of text are more than a PostgreSQL value holds")
        }
        elements.writeInteger(length)
        elements.writeString(text)
        count += 1
    }
}
