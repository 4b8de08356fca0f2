/// An ordered index the planner can read: an ``AtomicStore``'s ``AttributeIndex`` over its
/// nodes, or a ``SnapshotIndex`` over an immutable state's snapshots. The planner picks
/// the plan and walks the index the same way for both.
protocol PlannableIndex {
    /// What an entry gives: a node or a snapshot.
    associatedtype Record
    /// The fetch index's name.
    var name: String { get }
    /// The attribute the index orders by.
    var key: String { get }
    /// How the index folds string keys (`[c]`, `[d]`): empty for a plain index.
    var folding: Comparison.Options { get }
    /// Whether the index holds every object of its entity.
    var isComplete: Bool { get }
    /// How many entries hold NaN (the index then gives no total order).
    var nanCount: Int { get }
    /// Calls `body` with the records in `range` (nil: all), in the index's order or backwards,
    /// until it returns false.
    func walk(_ range: KeyRange?, backwards: Bool, _ body: (Record) throws -> Bool) rethrows
}

/// How the planner answers a fetch: from an index's order, from one term's ranges, or by a scan.
enum IndexChoice<Index: PlannableIndex> {
    /// Walk `index` in the order the request sorts by (within `term`'s one range, if any) and
    /// stop once the page is full.
    case ordered(Index, term: IndexTerm?, ascending: Bool)
    /// Judge only the objects `term`'s ranges hold, in each included entity's index.
    case term(IndexTerm, [Index])
    /// Judge every object.
    case scan
}

extension IndexPlanner {
    /// The plan for `request` over the concrete entities `included` (those holding objects):
    /// `index(entity, key, folding)` gives an entity's index on an attribute, if it keeps one.
    static func choose<Index: PlannableIndex>(_ request: FetchRequest, included: [String],
                                              index: (String, String, Comparison.Options) -> Index?) -> IndexChoice<Index> {
        /// The index of every included entity on `key`, when each has a complete one.
        func indexes(on key: String, folding: Comparison.Options = []) -> [Index]? {
            guard !included.isEmpty else { return nil }  // no objects: the scan is as quick
            var found: [Index] = []
            for name in included {
                guard let index = index(name, key, folding), index.isComplete else { return nil }
                found.append(index)
            }
            return found
        }
        let terms = terms(of: request.predicate).filter { indexes(on: $0.key, folding: $0.folding) != nil }.sorted { $0.cost < $1.cost }
        // An order an index gives, with a limit or a range of that index: walk it in order and
        // stop once the page is full (unless a more selective term on another key is at hand).
        if request.sortDescriptors.count == 1, let order = request.sortDescriptors.first,
           order.comparison == .plain, included.count == 1, let index = indexes(on: order.keyPath)?.first, index.nanCount == 0,
           !(terms.first.map { $0.cost <= 1 && ($0.key != order.keyPath || !$0.folding.isEmpty) } ?? false),
           request.fetchLimit > 0 || terms.contains(where: { $0.key == order.keyPath && $0.folding.isEmpty && $0.ranges.count == 1 }) {
            let term = terms.first { $0.key == order.keyPath && $0.folding.isEmpty && $0.ranges.count == 1 }
            return .ordered(index, term: term, ascending: order.ascending)
        }
        if let term = terms.first, let found = indexes(on: term.key, folding: term.folding) { return .term(term, found) }
        return .scan
    }

    /// Runs an index plan: `emit` gets each answer, `matches` judges a candidate by the
    /// predicate and `identity` names it. Nil for ``IndexChoice/scan`` (the caller scans).
    /// An ordered plan emits the page already sorted and paged (``FetchPlan/isSortedByIndex``).
    ///
    /// - Throws: ``GraphError/timeLimitExceeded(entity:)`` past the request's deadline; what
    ///   `matches` throws.
    static func run<Index: PlannableIndex>(_ choice: IndexChoice<Index>, _ request: FetchRequest, deadline: FetchDeadline?,
                                           matches: (Index.Record) throws -> Bool, identity: (Index.Record) -> ObjectID,
                                           emit: (Index.Record) -> Void) throws -> FetchPlan? {
        var examined = 0
        /// Whether an object an index gave for `term` needs no judging: the predicate is the
        /// term alone, and the index's ranges hold exactly its matches.
        func isAnswered(by term: IndexTerm?) -> Bool {
            guard let term, term.isExact, case .comparison = request.predicate else { return false }
            return true
        }
        switch choice {
        case .scan:
            return nil
        case .ordered(let index, let term, let ascending):
            let wanted = max(0, request.fetchOffset).addingReportingOverflow(request.fetchLimit)
            let stopAt = wanted.overflow || request.fetchLimit <= 0 ? Int.max : wanted.partialValue
            var matched = 0
            let answered = isAnswered(by: term)
            try index.walk(term?.ranges[0], backwards: !ascending) { record in
                try deadline?.check()
                examined += 1
                if !answered, try !matches(record) { return true }
                matched += 1
                if matched > request.fetchOffset { emit(record) }
                return matched < stopAt
            }
            return FetchPlan(access: .index(name: index.name, key: index.key, operation: term?.operation ?? "ORDER BY"),
                             isSortedByIndex: true, objectsExamined: examined)
        case .term(let term, let found):
            var seen = Set<ObjectID>()
            let answered = isAnswered(by: term)
            for index in found {
                for range in term.ranges {
                    try index.walk(range, backwards: false) { record in
                        // IN {1, 1.0} names one range twice: each object once.
                        if term.ranges.count > 1, !seen.insert(identity(record)).inserted { return true }
                        try deadline?.check()
                        examined += 1
                        if try answered || matches(record) { emit(record) }
                        return true
                    }
                }
            }
            return FetchPlan(access: .index(name: found.first?.name ?? "", key: term.key, operation: term.operation),
                             objectsExamined: examined)
        }
    }
}
