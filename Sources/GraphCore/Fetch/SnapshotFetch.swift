import Foundation

extension ObjectSnapshot: PredicateRecord {
    /// The value at a property index, for the predicate evaluator and the sorter.
    public func predicateValue(at index: Int) throws -> Value { values[index] }
}

/// A fetch request run over snapshots held outside a store: the matching, sorting and
/// deadline rules of an atomic store's fetch and a context's sort, for a reader that keeps
/// its own snapshots (a server answering from an immutable state, say).
///
/// ```swift
/// let fetch = try SnapshotFetch(request, model: model, resolve: { id in snapshots[id] })
/// var matches: [ObjectSnapshot] = []
/// for entity in model.entities where !entity.isAbstract && fetch.includes(entity) {
///     for snapshot in snapshots(of: entity) where try fetch.matches(snapshot) { matches.append(snapshot) }
/// }
/// matches = try fetch.sorted(matches)
/// ```
///
/// The request's ``FetchRequest/deadline`` is checked once per snapshot judged (and inside
/// the predicate where one snapshot can take long: subqueries, aggregates, long `MATCHES`
/// texts) and once after the sort: past it, ``GraphError/timeLimitExceeded(entity:)`` is
/// thrown, never a partial answer. The type is concrete, so that the evaluator is
/// specialized for snapshots here, in GraphCore. Not `Sendable`: one fetch, one thread.
public struct SnapshotFetch {
    /// The entity the request names.
    public let entity: EntityDescription
    private let request: FetchRequest
    private let deadline: FetchDeadline?
    private let evaluator: PredicateEvaluator<ObjectSnapshot>?
    private let resolve: (ObjectID) throws -> ObjectSnapshot?

    /// Prepares `request` on `model`; `resolve` finds the snapshot a relationship leads to
    /// (nil when the object is gone).
    ///
    /// - Throws: ``GraphError/unknownEntity(_:)``; a ``PredicateError`` for a predicate
    ///   that does not fit the entity.
    public init(_ request: FetchRequest, model: ObjectModel, resolve: @escaping (ObjectID) throws -> ObjectSnapshot?) throws {
        guard let entity = model.entity(named: request.entityName) else { throw GraphError.unknownEntity(request.entityName) }
        self.entity = entity
        self.request = request
        self.resolve = resolve
        let deadline = FetchDeadline(request)
        self.deadline = deadline
        evaluator = try request.predicate.map { try PredicateEvaluator<ObjectSnapshot>($0, entity: entity, watching: deadline, resolve: resolve) }
    }

    /// Whether snapshots of `candidate` answer the request (the entity itself, and its
    /// sub-entities unless the request leaves them out).
    public func includes(_ candidate: EntityDescription) -> Bool {
        request.includes(candidate, requested: entity)
    }

    /// Whether the request has a predicate (without one every snapshot matches).
    public var hasPredicate: Bool { evaluator != nil }

    /// Whether `snapshot` satisfies the predicate (true without one).
    ///
    /// - Throws: ``GraphError/timeLimitExceeded(entity:)`` past the deadline.
    public func matches(_ snapshot: ObjectSnapshot) throws -> Bool {
        if let evaluator { return try evaluator.matches(snapshot) }  // checks the deadline itself
        try deadline?.check()
        return true
    }

    /// Finds the snapshot of an object of one concrete entity by its reference, in the state
    /// of snapshots a ``SnapshotIndexes`` was advanced with (its entries name objects, they
    /// do not hold them). Called once per entity a fetch includes; the function it returns,
    /// once per index entry walked.
    public typealias ReferenceLookup = (_ entity: String) -> (ReferenceObject) -> ObjectSnapshot?

    /// The answer through one of `indexes`, when the planner finds one that fits (the same
    /// planner as an ``AtomicStore``'s); nil when the request needs a scan. `included` names
    /// the concrete entities the request includes that hold objects; `lookup` finds the
    /// objects the indexes name in the state they were advanced with.
    ///
    /// With ``FetchPlan/isSortedByIndex`` the snapshots are the request's page, sorted;
    /// otherwise they are every match, in the index's order, for the caller to sort and page.
    ///
    /// - Throws: ``GraphError/timeLimitExceeded(entity:)`` past the deadline; what judging
    ///   the predicate throws.
    public func indexed(_ indexes: SnapshotIndexes, included: [String], lookup: ReferenceLookup) throws -> (snapshots: [ObjectSnapshot], plan: FetchPlan)? {
        guard !indexes.isEmpty else { return nil }
        return try run(choose(indexes, included: included, lookup: lookup), budget: .max)
    }

    /// The answer through one of `indexes` when it is sure to be quick: the index answers
    /// the whole predicate (no object is judged by it) and the walk visits at most
    /// `entries` index entries. Nil otherwise: the request needs a scan, judging, or a
    /// longer walk, and its caller answers it where time matters less (with
    /// ``indexed(_:included:lookup:)`` or a scan). What the index gives is as
    /// ``indexed(_:included:lookup:)`` says; the work before giving up is bounded by `entries`.
    ///
    /// - Throws: what ``indexed(_:included:lookup:)`` throws.
    public func indexed(_ indexes: SnapshotIndexes, included: [String], lookup: ReferenceLookup,
                        visitingAtMost entries: Int) throws -> (snapshots: [ObjectSnapshot], plan: FetchPlan)? {
        guard !indexes.isEmpty else { return nil }
        let choice = choose(indexes, included: included, lookup: lookup)
        switch choice {
        case .scan: return nil
        case .ordered(_, _, _, _, _, let answered):
            // A page past the budget is known before the walk: leave it at once.
            guard answered || evaluator == nil, request.fetchLimit > 0, request.fetchOffset < entries,
                  request.fetchLimit <= entries - request.fetchOffset else { return nil }
        case .ranges(_, _, _, let answered):
            guard answered || evaluator == nil else { return nil }
        }
        do {
            return try run(choice, budget: entries)
        } catch is IndexWalkBudgetExceeded {
            return nil
        }
    }

    private func choose(_ indexes: SnapshotIndexes, included: [String], lookup: ReferenceLookup) -> IndexChoice<ResolvedSnapshotIndex> {
        IndexPlanner.choose(request, included: included.sorted()) { name in
            let found = indexes.indexes(ofEntity: name)
            if found.isEmpty { return [] }
            let snapshot = lookup(name)
            return found.map { ResolvedSnapshotIndex(index: $0, snapshot: snapshot) }
        }
    }

    private func run(_ choice: IndexChoice<ResolvedSnapshotIndex>, budget: Int) throws -> (snapshots: [ObjectSnapshot], plan: FetchPlan)? {
        var snapshots: [ObjectSnapshot] = []
        let evaluator = self.evaluator
        guard let plan = try IndexPlanner.run(choice, request, deadline: deadline, budget: budget,
                                              matches: { try evaluator?.matches($0) ?? true },
                                              identity: \.objectID, emit: { snapshots.append($0) }) else { return nil }
        return (snapshots, plan)
    }

    /// `snapshots` in the order of the request's sort descriptors (unchanged without any).
    ///
    /// - Throws: ``GraphError/unknownKey(entity:key:)`` or ``GraphError/wrongKind(entity:key:expected:)``
    ///   for a key path that cannot be sorted by; ``GraphError/timeLimitExceeded(entity:)``
    ///   when the sort ended past the deadline.
    public func sorted(_ snapshots: [ObjectSnapshot]) throws -> [ObjectSnapshot] {
        guard !request.sortDescriptors.isEmpty else { return snapshots }
        let sorted = try RecordSorter(request.sortDescriptors, entity: entity, resolve: resolve).sorted(snapshots)
        try deadline?.checkNow()  // a sort that ran past the deadline answers late: refuse
        return sorted
    }
}
