import Foundation
import GraphCore
import PostgresNIO

/// SQL text with its values bound as parameters (`$1`, `$2`, …): values never go into the text.
struct SQLStatement {
    var text: String
    private(set) var binds = PostgresBindings()
    /// The parameters' types, in order (`.null`: PostgreSQL infers it), for a statement prepared
    /// once and run many times (``DatabaseSession/runPrepared(_:)``).
    private(set) var parameterTypes: [PostgresDataType] = []
    var parameterCount: Int { parameterTypes.count }
    /// Where each parameter's value came from, when the statement keeps count
    /// (``recordingSources()``): a fetch's plan is kept by its shape only when every one is known
    /// (``FetchPlanCache``).
    private(set) var sources: [BindSource]?
    /// The source of the next parameter bound (then forgotten).
    private var nextSource: BindSource?
    /// ``preparedKey``, when known (a plan kept for its shape makes it once).
    var knownPreparedKey: PreparedKey?

    /// A statement that keeps where its parameters' values come from.
    static func recordingSources() -> SQLStatement {
        var statement = SQLStatement()
        statement.sources = []
        return statement
    }

    /// The statement with other values for its parameters, of the same types.
    func rebound(_ binds: PostgresBindings) -> SQLStatement {
        var statement = self
        statement.binds = binds
        statement.sources = nil
        return statement
    }

    /// Binds `value`, noting where it came from, and returns its placeholder.
    mutating func parameter(_ value: some PostgresNonThrowingEncodable, from source: BindSource) -> String {
        nextSource = source
        return parameter(value)
    }

    private mutating func noteSource() {
        defer { nextSource = nil }
        guard sources != nil else { return }
        sources?.append(nextSource ?? .unknown)
    }

    /// PostgreSQL's limit on the parameters of one statement.
    static let maximumParameters = 65_535

    init(_ text: String = "") { self.text = text }

    /// What tells two prepared statements apart on a connection: the text and the parameters'
    /// types (a text may bind values it does not use).
    var preparedKey: PreparedKey {
        knownPreparedKey ?? PreparedKey(text + "\u{0}" + parameterTypes.map { String($0.rawValue) }.joined(separator: ","))
    }

    /// Binds a value and returns its placeholder.
    mutating func parameter(_ value: some PostgresNonThrowingEncodable) -> String {
        binds.append(value)
        parameterTypes.append(value.psqlType)
        noteSource()
        return "$\(parameterCount)"
    }

    /// Binds a value that may fail to encode (bytes) and returns its placeholder.
    mutating func parameter(throwing value: some PostgresThrowingDynamicTypeEncodable) throws -> String {
        try binds.append(value)
        parameterTypes.append(value.psqlType)
        noteSource()
        return "$\(parameterCount)"
    }

    /// Binds a column of many rows as one array and returns its placeholder, cast where the
    /// column is sent in another form (for `unnest(…)`).
    mutating func parameter(_ column: ColumnArray) -> String {
        binds.append(column)
        parameterTypes.append(column.psqlType)
        noteSource()
        return "$\(parameterCount)\(column.cast)"
    }

    /// Binds nil and returns its placeholder.
    mutating func nullParameter() -> String {
        binds.appendNull()
        parameterTypes.append(.null)
        noteSource()
        return "$\(parameterCount)"
    }

    /// Binds a graph value in the form its column holds (`type` nil: a to-one reference) and
    /// returns its placeholder, cast to the column's type where the value is sent as text.
    ///
    /// - Throws: ``PostgresStoreError/unreadableValue(entity:key:reason:)`` for a value of the wrong
    ///   kind or an object ID that is not one of this store's integer references.
    mutating func parameter(_ value: Value, as type: AttributeType?, entity: String, key: String) throws -> String {
        switch value {
        case .null: return nullParameter()
        case .int(let i): return parameter(i)
        case .double(let d): return parameter(d)
        case .decimal(let d): return parameter(d.isNaN ? "NaN" : d.description) + "::numeric"
        case .string(let s): return parameter(s)
        case .bool(let b): return parameter(b)
        case .date(let d): return parameter(d.timeIntervalSinceReferenceDate)
        case .binary(let data): return try parameter(throwing: data)
        case .uuid(let u): return parameter(u)
        case .uri(let u): return parameter(u.absoluteString)
        case .object(let id):
            guard case .int(let reference) = id.referenceObject, !id.isTemporary else {
                throw PostgresStoreError.unreadableValue(entity: entity, key: key, reason: "\(id.uriRepresentation) is not an object of a PostgreSQL store")
            }
            return parameter(reference)
        case .objects:
            throw PostgresStoreError.unreadableValue(entity: entity, key: key, reason: "a to-many value where a column's value is expected")
        }
    }
}

/// What tells two prepared statements apart (``SQLStatement/preparedKey``): their text and
/// parameter types, hashed once (a fetch's text is a kilobyte, and a kept plan's key is looked up
/// on every run).
struct PreparedKey: Hashable {
    let text: String
    private let hashValueOfText: Int

    init(_ text: String) {
        self.text = text
        hashValueOfText = text.hashValue
    }

    static func == (a: PreparedKey, b: PreparedKey) -> Bool {
        a.hashValueOfText == b.hashValueOfText && a.text == b.text
    }

    func hash(into hasher: inout Hasher) { hasher.combine(hashValueOfText) }
}

/// Reading a column's value back into a graph value.
enum ColumnReader {
    /// The select-list expression for a column, cast where the store reads it in another form.
    static func selectExpression(_ column: String, type: AttributeType?) -> String {
        let quoted = TableLayout.quoted(column)
        switch type {
        case .int16?, .int32?: return "t.\(quoted)::bigint"
        case .decimal?: return "t.\(quoted)::text"
        default: return "t.\(quoted)"
        }
    }

    /// The value of an attribute's cell.
    static func value(_ cell: PostgresCell, type: AttributeType, entity: String, key: String) throws -> Value {
        do {
            switch type {
            case .int16, .int32, .int64:
                return try cell.decode(Int64?.self).map(Value.int) ?? .null
            case .double, .float:
                return try cell.decode(Double?.self).map(Value.double) ?? .null
            case .date:
                return try cell.decode(Double?.self).map { .date(Date(timeIntervalSinceReferenceDate: $0)) } ?? .null
            case .decimal:
                guard let text = try cell.decode(String?.self) else { return .null }
                if text == "NaN" { return .decimal(.nan) }
                guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                    throw PostgresStoreError.unreadableValue(entity: entity, key: key, reason: "\(text) is not a decimal number")
                }
                return .decimal(decimal)
            case .string:
                return try cell.decode(String?.self).map(Value.string) ?? .null
            case .bool:
                return try cell.decode(Bool?.self).map(Value.bool) ?? .null
            case .binary:
                return try cell.decode(Data?.self).map(Value.binary) ?? .null
            case .uuid:
                return try cell.decode(UUID?.self).map(Value.uuid) ?? .null
            case .uri:
                guard let text = try cell.decode(String?.self) else { return .null }
                guard let url = URL(string: text) else {
                    throw PostgresStoreError.unreadableValue(entity: entity, key: key, reason: "\(text.prefix(100)) is not a URI")
                }
                return .uri(url)
            }
        } catch let error as PostgresStoreError {
            throw error
        } catch {
            throw PostgresStoreError.unreadableValue(entity: entity, key: key, reason: "its column does not hold a \(type): \(String(describing: error).prefix(200))")
        }
    }

    /// An integer cell (an ID, a version, a reference), or nil when it is NULL.
    static func integer(_ cell: PostgresCell, what: String) throws -> Int64? {
        do {
            return try cell.decode(Int64?.self)
        } catch {
            throw PostgresStoreError.unreadableValue(entity: "(store)", key: what, reason: "not an integer")
        }
    }

    /// A text cell, or nil when it is NULL.
    static func text(_ cell: PostgresCell, what: String) throws -> String? {
        do {
            return try cell.decode(String?.self)
        } catch {
            throw PostgresStoreError.unreadableValue(entity: "(store)", key: what, reason: "not text")
        }
    }
}
