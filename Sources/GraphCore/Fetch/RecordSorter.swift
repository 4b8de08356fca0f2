import Foundation

/// Sorts records by sort descriptors; key paths may cross to-one relationships.
///
/// Each record's sort keys are read once (folded already for a case-insensitive
/// comparison); then an index permutation is sorted, comparing those keys.
struct RecordSorter<Record: PredicateRecord> {
    struct Key {
        let indexes: [Int]
        let ascending: Bool
        let comparison: SortDescriptor.StringComparison
    }

    /// The sort keys, resolved against the entity (read by ``TopKSelector`` too).
    let keys: [Key]
    private let resolve: (ObjectID) throws -> Record?

    init(_ descriptors: [SortDescriptor], entity: EntityDescription, resolve: @escaping (ObjectID) throws -> Record?) throws {
        keys = try descriptors.map { descriptor in
            var indexes: [Int] = []
            var current: EntityDescription? = entity
            for component in descriptor.keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
                guard let entity = current, let index = entity.index(ofProperty: component) else {
                    throw GraphError.unknownKey(entity: current?.name ?? "(attribute value)", key: component)
                }
                if case .relationship(let r) = entity.properties[index], r.isToMany {
                    throw GraphError.wrongKind(entity: entity.name, key: component, expected: "an attribute or to-one relationship to sort by")
                }
                indexes.append(index)
                current = entity.destination(ofPropertyAt: index)
            }
            return Key(indexes: indexes, ascending: descriptor.ascending, comparison: descriptor.comparison)
        }
        self.resolve = resolve
    }

    func sorted(_ records: [Record]) throws -> [Record] {
        guard !keys.isEmpty, records.count > 1 else { return records }
        var columns: [SortColumn] = []
        defer { for column in columns { column.free() } }
        for (values, key) in zip(try values(of: records), keys) {
            columns.append(SortColumn(values, ascending: key.ascending, comparison: key.comparison))
        }
        var order = Array(0..<records.count)
        if columns.count == 1 {
            let column = columns[0]
            order.sort { a, b in column.precedes(a, b) }
        } else {
            columns.withUnsafeBufferPointer { columns in
                order.sort { a, b in
                    for column in columns {
                        let result = column.order(a, b)
                        if result == .orderedSame { continue }
                        return (result == .orderedAscending) == column.ascending
                    }
                    return false
                }
            }
        }
        return order.map { records[$0] }
    }

    /// Each key's value for every record, in ``keys``' order; folded already for a
    /// case-insensitive comparison.
    func values(of records: [Record]) throws -> [[Value]] {
        try keys.map { key in
            var values: [Value] = []
            values.reserveCapacity(records.count)
            for record in records {
                var value = try value(at: key.indexes, of: record)
                if key.comparison == .caseInsensitive, case .string(let s) = value {
                    value = .string(StringFolding.fold(s, .caseInsensitive))
                }
                values.append(value)
            }
            return values
        }
    }

    private func value(at indexes: [Int], of record: Record) throws -> Value {
        var current = record
        for (step, index) in indexes.enumerated() {
            let value = try current.predicateValue(at: index)
            if step == indexes.count - 1 { return value }
            guard case .object(let id) = value, let next = try resolve(id) else { return .null }
            current = next
        }
        return .null
    }

    static func order(_ a: Value, _ b: Value, _ comparison: SortDescriptor.StringComparison) -> ComparisonResult {
        switch (a, b) {
        case (.string(let x), .string(let y)): return orderStrings(x, y, comparison)
        case (.int(let x), .int(let y)): return x < y ? .orderedAscending : (x == y ? .orderedSame : .orderedDescending)
        case (.null, .null): return .orderedSame
        case (.null, _): return .orderedAscending
        case (_, .null): return .orderedDescending
        default: return ValueComparison.order(a, b) ?? .orderedSame
        }
    }

    static func orderStrings(_ x: String, _ y: String, _ comparison: SortDescriptor.StringComparison) -> ComparisonResult {
        switch comparison {
        case .plain, .caseInsensitive: return x < y ? .orderedAscending : (x == y ? .orderedSame : .orderedDescending)
        case .localized: return x.compare(y, options: [], range: nil, locale: .current)
        case .localizedCaseInsensitive: return x.compare(y, options: [.caseInsensitive], range: nil, locale: .current)
        case .localizedStandard: return x.localizedStandardCompare(y)
        }
    }
}

/// One sort key's values for every record, unboxed when they are all strings or all
/// integers (nil allowed), in buffers the sort reads without retaining anything.
/// ``RecordSorter/sorted(_:)`` frees them when it is done.
private struct SortColumn {
    let ascending: Bool
    let comparison: SortDescriptor.StringComparison
    private let isNull: UnsafeMutableBufferPointer<Bool>
    private let strings: UnsafeMutableBufferPointer<String>
    private let integers: UnsafeMutableBufferPointer<Int64>
    private let values: UnsafeMutableBufferPointer<Value>

    init(_ values: [Value], ascending: Bool, comparison: SortDescriptor.StringComparison) {
        self.ascending = ascending
        self.comparison = comparison
        isNull = .allocate(capacity: values.count)
        _ = isNull.initialize(from: values.lazy.map(\.isNull))
        let allStrings = values.allSatisfy { if case .string = $0 { true } else { $0.isNull } }
        let allIntegers = !allStrings && values.allSatisfy { if case .int = $0 { true } else { $0.isNull } }
        strings = .allocate(capacity: allStrings ? values.count : 0)
        integers = .allocate(capacity: allIntegers ? values.count : 0)
        self.values = .allocate(capacity: allStrings || allIntegers ? 0 : values.count)
        if allStrings {
            _ = strings.initialize(from: values.lazy.map { if case .string(let s) = $0 { s } else { "" } })
        } else if allIntegers {
            _ = integers.initialize(from: values.lazy.map { if case .int(let i) = $0 { i } else { 0 } })
        } else {
            _ = self.values.initialize(from: values)
        }
    }

    func free() {
        isNull.deallocate()
        strings.deinitialize().deallocate()
        integers.deallocate()
        values.deinitialize().deallocate()
    }

    @inline(__always)
    func order(_ a: Int, _ b: Int) -> ComparisonResult {
        switch (isNull[a], isNull[b]) {
        case (true, true): return .orderedSame
        case (true, false): return .orderedAscending
        case (false, true): return .orderedDescending
        default: break
        }
        if !strings.isEmpty {
            if comparison == .plain || comparison == .caseInsensitive {
                return strings[a] < strings[b] ? .orderedAscending : (strings[a] == strings[b] ? .orderedSame : .orderedDescending)
            }
            return RecordSorter<ObjectSnapshot>.orderStrings(strings[a], strings[b], comparison)
        }
        if !integers.isEmpty {
            return integers[a] < integers[b] ? .orderedAscending : (integers[a] == integers[b] ? .orderedSame : .orderedDescending)
        }
        return RecordSorter<ObjectSnapshot>.order(values[a], values[b], comparison)
    }

    /// Whether record `a` goes before record `b`.
    @inline(__always)
    func precedes(_ a: Int, _ b: Int) -> Bool {
        if !strings.isEmpty, comparison == .plain || comparison == .caseInsensitive, !isNull[a], !isNull[b] {
            return ascending ? strings[a] < strings[b] : strings[b] < strings[a]
        }
        let result = order(a, b)
        return result == .orderedSame ? false : (result == .orderedAscending) == ascending
    }
}
