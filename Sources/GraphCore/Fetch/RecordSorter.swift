import Foundation

/// Sorts records by sort descriptors; key paths may cross to-one relationships.
///
/// Each record's sort keys are read once (folded already for a case-insensitive
/// comparison); then an index permutation is sorted, comparing those keys.
struct RecordSorter<Record: PredicateRecord> {
    private struct Key {
        let indexes: [Int]
        let ascending: Bool
        let comparison: SortDescriptor.StringComparison
    }

    private let keys: [Key]
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
        let width = keys.count
        var values: [Value] = []
        values.reserveCapacity(records.count * width)
        for record in records {
            for key in keys {
                var value = try value(at: key.indexes, of: record)
                if key.comparison == .caseInsensitive, case .string(let s) = value {
                    value = .string(StringFolding.fold(s, .caseInsensitive))
                }
                values.append(value)
            }
        }
        var order = Array(0..<records.count)
        values.withUnsafeBufferPointer { values in
            order.sort { a, b in
                for (position, key) in keys.enumerated() {
                    let result = Self.order(values[a * width + position], values[b * width + position], key.comparison)
                    if result == .orderedSame { continue }
                    return (result == .orderedAscending) == key.ascending
                }
                return false
            }
        }
        return order.map { records[$0] }
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

    private static func order(_ a: Value, _ b: Value, _ comparison: SortDescriptor.StringComparison) -> ComparisonResult {
        switch (a, b) {
        case (.string(let x), .string(let y)):
            switch comparison {
            case .plain, .caseInsensitive: return x < y ? .orderedAscending : (x == y ? .orderedSame : .orderedDescending)
            case .localized: return x.compare(y, options: [], range: nil, locale: .current)
            case .localizedCaseInsensitive: return x.compare(y, options: [.caseInsensitive], range: nil, locale: .current)
            case .localizedStandard: return x.localizedStandardCompare(y)
            }
        case (.int(let x), .int(let y)): return x < y ? .orderedAscending : (x == y ? .orderedSame : .orderedDescending)
        case (.null, .null): return .orderedSame
        case (.null, _): return .orderedAscending
        case (_, .null): return .orderedDescending
        default: return ValueComparison.order(a, b) ?? .orderedSame
        }
    }
}
