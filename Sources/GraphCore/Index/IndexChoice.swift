/// An ordered index the planner can read: a ``SnapshotIndex`` with the snapshots its entries
/// name (``ResolvedSnapshotIndex``), of an ``AtomicStore`` or of a server's immutable state.
/// The planner picks the plan and walks the index the same way for both.
protocol PlannableIndex {
    /// What an entry gives: the object's snapshot.
    associatedtype Record
    /// The fetch index's name.
    var name: String { get }
    /// The keyed elements, most significant first (at least one).
    var elements: [IndexedElement] { get }
    /// Whether the index holds every object of its entity.
    var isComplete: Bool { get }
    /// How many entries hold NaN (the index then gives no total order).
    var nanCount: Int { get }
    /// Calls `body` with the compound key and record of each entry in `range` (nil: all), in
    /// the index's order or backwards, until it returns false.
    func walk(_ range: EntryRange?, backwards: Bool, _ body: (IndexKey, [IndexKey], Record) throws -> Bool) rethrows
}

/// What a plan reports: the index, the elements it used and their operators.
struct IndexUse {
    let name: String
    let key: String
    let operation: String
}

/// How the planner answers a fetch: from an index's order, from ranges of an index, or by a scan.
enum IndexChoice<Index: PlannableIndex> {
    /// Walk `index` in the order of its element `element` (within `range`, if any: equal keys
    /// on the elements before it) and stop once the page is full.
    case ordered(Index, range: EntryRange?, element: Int, ascending: Bool, use: IndexUse, answered: Bool)
    /// Judge only the objects the ranges hold, in each included entity's index.
    case ranges([Index], [EntryRange], use: IndexUse, answered: Bool)
    /// Judge every object.
    case scan
}

/// The terms an index answers: one equality on each of its first elements, and maybe a term on
/// the element after them.
private struct TermPlan {
    var prefix: [IndexTerm] = []
    var tail: IndexTerm?
    let elementCount: Int

    var terms: [IndexTerm] { prefix + (tail.map { [$0] } ?? []) }

    /// Higher is more selective: more equalities, then a better tail, then exact terms, then
    /// fewer elements (a smaller index).
    var score: (Int, Int, Int, Int) {
        (prefix.count, tail.map { 10 - $0.cost } ?? 0, terms.allSatisfy(\.isExact) ? 1 : 0, -elementCount)
    }

    var ranges: [EntryRange] {
        // One equality alone (the usual case): its own range of the first element.
        if prefix.count == 1, tail == nil, let range = prefix[0].ranges.first { return [EntryRange(prefix: [], element: range)] }
        let keys = prefix.compactMap(\.point)
        guard let tail else { return [EntryRange(prefix: keys, element: nil)] }
        return tail.ranges.map { EntryRange(prefix: keys, element: $0) }
    }

    func use(_ name: String, orderKey: String? = nil) -> IndexUse {
        // One part (the usual case): no joined strings to make.
        if prefix.isEmpty {
            if let tail { return IndexUse(name: name, key: tail.key, operation: tail.operation) }
            if let orderKey { return IndexUse(name: name, key: orderKey, operation: "ORDER BY") }
        }
        var keys = terms.map(\.key)
        var operations = terms.map(\.operation)
        if let orderKey, tail == nil {
            keys.append(orderKey)
            operations.append("ORDER BY")
        }
        return IndexUse(name: name, key: keys.joined(separator: ", "), operation: operations.joined(separator: ", "))
    }

    /// Whether the ranges hold exactly the matches of `predicate`: it is one exact term.
    func answers(_ predicate: Predicate?) -> Bool {
        guard case .comparison = predicate, terms.count == 1 else { return false }
        return terms[0].isExact
    }
}

extension IndexPlanner {
    /// The plan for `request` over the concrete entities `included` (those holding objects):
    /// `indexes(entity)` gives the indexes a concrete entity keeps.
    static func choose<Index: PlannableIndex>(_ request: FetchRequest, included: [String],
                                              indexes: (String) -> [Index]) -> IndexChoice<Index> {
        guard let firstEntity = included.first else { return .scan }  // no objects: the scan is as quick
        // Each index the first entity keeps, with the index of the same elements in every other
        // included entity: all complete.
        var shapes: [[Index]] = []
        for index in indexes(firstEntity) where index.isComplete {
            var found = [index]
            for name in included.dropFirst() {
                guard let other = indexes(name).first(where: { $0.elements == index.elements }), other.isComplete else { break }
                found.append(other)
            }
            if found.count == included.count { shapes.append(found) }
        }
        guard !shapes.isEmpty else { return .scan }
        let comparisons = comparisons(of: request.predicate)
        var best: (plan: TermPlan, score: (Int, Int, Int, Int), indexes: [Index])?
        for shape in shapes {
            guard let plan = termPlan(shape[0].elements, comparisons) else { continue }
            let score = plan.score
            if best.map({ score > $0.score }) ?? true { best = (plan, score, shape) }
        }
        // An order an index gives, with a limit or a range of that index: walk it in order and
        // stop once the page is full (unless a more selective plan on other terms is at hand).
        if request.sortDescriptors.count == 1, let order = request.sortDescriptors.first, order.comparison == .plain,
           included.count == 1 {
            var chosen: (plan: TermPlan, element: Int, index: Index)?
            for shape in shapes where shape[0].nanCount == 0 {
                guard let (plan, element) = orderedPlan(shape[0].elements, key: order.keyPath, comparisons),
                      request.fetchLimit > 0 || !plan.terms.isEmpty else { continue }
                if let best, beats(best.plan, plan) { continue }
                if chosen.map({ plan.score > $0.plan.score }) ?? true { chosen = (plan, element, shape[0]) }
            }
            if let chosen {
                let range = chosen.plan.terms.isEmpty ? nil : chosen.plan.ranges.first
                return .ordered(chosen.index, range: range, element: chosen.element, ascending: order.ascending,
                                use: chosen.plan.use(chosen.index.name, orderKey: order.keyPath),
                                answered: chosen.plan.answers(request.predicate))
            }
        }
        guard let best else { return .scan }
        return .ranges(best.indexes, best.plan.ranges, use: best.plan.use(best.indexes[0].name),
                       answered: best.plan.answers(request.predicate))
    }

    /// The best terms of `comparisons` an index of `elements` answers: equalities on its first
    /// elements, then the most selective term on the next one.
    private static func termPlan(_ elements: [IndexedElement], _ comparisons: [Comparison]) -> TermPlan? {
        var plan = TermPlan(elementCount: elements.count)
        for element in elements {
            let terms = on(element.key, comparisons).compactMap { term($0, folding: element.folding) }
            if let point = terms.filter({ $0.point != nil }).max(by: { !$0.isExact && $1.isExact }) {
                plan.prefix.append(point)
                continue
            }
            plan.tail = terms.min { ($0.cost, $0.isExact ? 0 : 1) < ($1.cost, $1.isExact ? 0 : 1) }
            break
        }
        return plan.terms.isEmpty ? nil : plan
    }

    /// The terms with which an index of `elements` gives the order of `key`: equalities on the
    /// elements before `key`'s (plain) element, and maybe one range of `key`; and that element.
    private static func orderedPlan(_ elements: [IndexedElement], key: String, _ comparisons: [Comparison]) -> (TermPlan, Int)? {
        var plan = TermPlan(elementCount: elements.count)
        for (position, element) in elements.enumerated() {
            if element.key == key && element.folding.isEmpty {
                plan.tail = on(key, comparisons).compactMap { term($0, folding: []) }
                    .filter { $0.ranges.count == 1 }.min { $0.cost < $1.cost }
                return (plan, position)
            }
            let points = on(element.key, comparisons).compactMap { term($0, folding: element.folding) }.filter { $0.point != nil }
            guard let point = points.max(by: { !$0.isExact && $1.isExact }) else { return nil }
            plan.prefix.append(point)
        }
        return nil
    }

    /// The comparisons of `key` itself (a term is made only for those).
    private static func on(_ key: String, _ comparisons: [Comparison]) -> [Comparison] {
        comparisons.filter { if case .keyPath(let path) = $0.left { path == key } else { false } }
    }

    /// Whether a plan of terms is so much more selective than an ordered plan that judging its
    /// candidates and sorting them beats walking the order: more equalities, or as many and an
    /// `IN` where the ordered plan has nothing as good.
    private static func beats(_ terms: TermPlan, _ ordered: TermPlan) -> Bool {
        let equalities = ordered.prefix.count + (ordered.tail?.point == nil ? 0 : 1)
        if terms.prefix.count != equalities { return terms.prefix.count > equalities }
        guard let tail = terms.tail, tail.cost <= 1 else { return false }
        return (ordered.tail?.cost ?? Int.max) > tail.cost
    }

    /// Runs an index plan: `emit` gets each answer, `matches` judges a candidate by the
    /// predicate and `identity` names it. Nil for ``IndexChoice/scan`` (the caller scans).
    /// An ordered plan emits the page already sorted and paged (``FetchPlan/isSortedByIndex``),
    /// ties in reference order where the index orders them by a later element.
    ///
    /// With a `budget`, the walk stops with ``IndexWalkBudgetExceeded`` once it has visited
    /// more index entries than that (a caller that must not wait long then answers otherwise).
    ///
    /// - Throws: ``GraphError/timeLimitExceeded(entity:)`` past the request's deadline; what
    ///   `matches` throws; ``IndexWalkBudgetExceeded``.
    static func run<Index: PlannableIndex>(_ choice: IndexChoice<Index>, _ request: FetchRequest, deadline: FetchDeadline?,
                                           budget: Int = .max,
                                           matches: (Index.Record) throws -> Bool, identity: (Index.Record) -> ObjectID,
                                           emit: (Index.Record) -> Void) throws -> FetchPlan? {
        var examined = 0
        var visits = 0
        /// Counts one visited entry; throws past the budget.
        func visit() throws(IndexWalkBudgetExceeded) {
            visits += 1
            if visits > budget { throw IndexWalkBudgetExceeded() }
        }
        switch choice {
        case .scan:
            return nil
        case .ordered(let index, let range, let element, let ascending, let use, let answered):
            let wanted = max(0, request.fetchOffset).addingReportingOverflow(request.fetchLimit)
            let stopAt = wanted.overflow || request.fetchLimit <= 0 ? Int.max : wanted.partialValue
            var matched = 0
            /// Judges a record in the order; false once the page is full.
            func take(_ record: Index.Record) throws -> Bool {
                try deadline?.check()
                examined += 1
                if !answered, try !matches(record) { return true }
                matched += 1
                if matched > request.fetchOffset { emit(record) }
                return matched < stopAt
            }
            if element == index.elements.count - 1 {
                try index.walk(range, backwards: !ascending) { _, _, record in
                    try visit()
                    return try take(record)
                }
            } else {
                // Entries of one key of the element are ordered by the elements after it: taken
                // as a group, in reference order (a stable sort's order of a scan).
                var group: [Index.Record] = []
                var groupKey: IndexKey?
                var going = true
                func flush() throws {
                    group.sort { SnapshotIndexEntry.referenceOrder(identity($0), identity($1)) < 0 }
                    for record in group where going { going = try take(record) }
                    group.removeAll(keepingCapacity: true)
                }
                try index.walk(range, backwards: !ascending) { first, rest, record in
                    try visit()
                    let key = element == 0 ? first : (element - 1 < rest.count ? rest[element - 1] : .null)
                    if let current = groupKey, IndexKey.order(current, key) != 0 {
                        try flush()
                        if !going { return false }
                    }
                    try deadline?.check()
                    groupKey = key
                    group.append(record)
                    return true
                }
                if going { try flush() }
            }
            return FetchPlan(access: .index(name: use.name, key: use.key, operation: use.operation),
                             isSortedByIndex: true, objectsExamined: examined)
        case .ranges(let found, let ranges, let use, let answered):
            if found.count * ranges.count > budget { throw IndexWalkBudgetExceeded() }
            var seen = Set<ObjectID>()
            for index in found {
                for range in ranges {
                    try index.walk(range, backwards: false) { _, _, record in
                        try visit()
                        // IN {1, 1.0} names one range twice: each object once.
                        if ranges.count > 1, !seen.insert(identity(record)).inserted { return true }
                        try deadline?.check()
                        examined += 1
                        if try answered || matches(record) { emit(record) }
                        return true
                    }
                }
            }
            return FetchPlan(access: .index(name: use.name, key: use.key, operation: use.operation), objectsExamined: examined)
        }
    }
}

/// An index walk visited more entries than its caller's budget (``IndexPlanner/run(_:_:deadline:budget:matches:identity:emit:)``).
struct IndexWalkBudgetExceeded: Error {}
