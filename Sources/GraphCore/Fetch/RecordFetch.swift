import Foundation

extension ObjectSnapshot: PredicateRecord {
    /// The value at a property index, for the predicate evaluator and the sorter.
    public func predicateValue(at index: Int) throws -> Value { values[index] }
}

/// A fetch request run over records held outside a store: the matching, sorting and
/// deadline rules of an atomic store's fetch and a context's sort, for a reader that keeps
/// its own records (a server answering from an immutable state of snapshots, say).
///
/// ```swift
/// let fetch = try RecordFetch<ObjectSnapshot>(request, model: model, resolve: { id in snapshots[id] })
/// var matches: [ObjectSnapshot] = []
/// for entity in model.entities where fetch.includes(entity) {
///     try fetch.filter(snapshots(of: entity), into: &matches)
/// }
/// matches = try fetch.sorted(matches)
/// ```
///
/// The request's ``FetchRequest/deadline`` is watched while records are judged and once
/// after the sort: past it, ``GraphError/timeLimitExceeded(entity:)`` is thrown, never a
/// partial answer. Not `Sendable`: one fetch, one thread.
public struct RecordFetch<Record: PredicateRecord> {
    /// The entity the request names.
    public let entity: EntityDescription
    private let request: FetchRequest
    private let deadline: FetchDeadline?
    private let evaluator: PredicateEvaluator<Record>?
    private let resolve: (ObjectID) throws -> Record?

    /// Prepares `request` on `model`; `resolve` finds the record a relationship leads to
    /// (nil when it is gone).
    ///
    /// - Throws: ``GraphError/unknownEntity(_:)``; a ``PredicateError`` for a predicate
    ///   that does not fit the entity.
    public init(_ request: FetchRequest, model: ObjectModel, resolve: @escaping (ObjectID) throws -> Record?) throws {
        guard let entity = model.entity(named: request.entityName) else { throw GraphError.unknownEntity(request.entityName) }
        self.entity = entity
        self.request = request
        self.resolve = resolve
        let deadline = FetchDeadline(request)
        self.deadline = deadline
        evaluator = try request.predicate.map { try PredicateEvaluator<Record>($0, entity: entity, watching: deadline, resolve: resolve) }
    }

    /// Whether records of `candidate` answer the request (the entity itself, and its
    /// sub-entities unless the request leaves them out).
    public func includes(_ candidate: EntityDescription) -> Bool {
        request.includes(candidate, requested: entity)
    }

    /// Appends to `matches` every record of `records` that satisfies the predicate.
    ///
    /// - Throws: ``GraphError/timeLimitExceeded(entity:)`` past the deadline.
    public func filter(_ records: some Sequence<Record>, into matches: inout [Record]) throws {
        if let evaluator {
            // The evaluator checks the deadline itself, once per record.
            for record in records where try evaluator.matches(record) { matches.append(record) }
        } else if let deadline {
            for record in records {
                try deadline.check()
                matches.append(record)
            }
        } else {
            matches.append(contentsOf: records)
        }
    }

    /// How many of `records` satisfy the predicate.
    ///
    /// - Throws: ``GraphError/timeLimitExceeded(entity:)`` past the deadline.
    public func count(_ records: some Collection<Record>) throws -> Int {
        guard let evaluator else { return records.count }
        var count = 0
        for record in records where try evaluator.matches(record) { count += 1 }
        return count
    }

    /// `records` in the order of the request's sort descriptors (unchanged without any).
    ///
    /// - Throws: ``GraphError/unknownKey(entity:key:)`` or ``GraphError/wrongKind(entity:key:expected:)``
    ///   for a key path that cannot be sorted by; ``GraphError/timeLimitExceeded(entity:)``
    ///   when the sort ended past the deadline.
    public func sorted(_ records: [Record]) throws -> [Record] {
        guard !request.sortDescriptors.isEmpty else { return records }
        let sorted = try RecordSorter(request.sortDescriptors, entity: entity, resolve: resolve).sorted(records)
        try deadline?.checkNow()  // a sort that ran past the deadline answers late: refuse
        return sorted
    }
}
