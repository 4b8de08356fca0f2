import Foundation

/// Sorts records by sort descriptors; key paths may cross to-one relationships.
/// nil sorts before every other value, as in Core Data.
struct RecordSorter<Record: PredicateRecord> {
    private let keys: [(indexes: [Int], ascending: Bool, options: Comparison.Options)]
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
            return (indexes, descriptor.ascending, descriptor.caseInsensitive ? .caseInsensitive : [])
        }
        self.resolve = resolve
    }

    func sorted(_ records: [Record]) throws -> [Record] {
        guard !keys.isEmpty else { return records }
        // Read each sort key once per record, then sort the keys.
        let rows = try records.map { record in (record, try keys.map { try value(at: $0.indexes, of: record) }) }
        return rows.sorted { a, b in
            for (position, key) in keys.enumerated() {
                let order = Self.order(a.1[position], b.1[position], key.options)
                if order == .orderedSame { continue }
                return (order == .orderedAscending) == key.ascending
            }
            return false
        }.map(\.0)
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

    private static func order(_ a: Value, _ b: Value, _ options: Comparison.Options) -> ComparisonResult {
        switch (a.isNull, b.isNull) {
        case (true, true): return .orderedSame
        case (true, false): return .orderedAscending
        case (false, true): return .orderedDescending
        default: return ValueComparison.order(a, b, options: options) ?? .orderedSame
        }
    }
}
