import Foundation

extension AtomicStore {
    /// How the store would answer a fetch and how many objects it judged: the fetch is run
    /// (its results dropped), so the count is the real one.
    ///
    /// ```swift
    /// let plan = try store.explain(FetchRequest(entityName: "Person", predicate: try Predicate(format: "email == %@", "a@b.c")))
    /// // index byEmail on email (==), examined 1 object
    /// ```
    ///
    /// - Throws: the errors of ``fetch(_:)``.
    public func explain(_ request: FetchRequest) throws -> FetchPlan {
        try execute(request).plan
    }

    /// The matching nodes, through an index when one fits (see `docs/PREDICATES.md`, "Fetch
    /// plans"), else by scanning every node of the entity and its sub-entities.
    func execute(_ request: FetchRequest) throws -> (result: StoreFetchResult, plan: FetchPlan) {
        guard let model, let entity = model.entity(named: request.entityName) else {
            throw GraphError.unknownEntity(request.entityName)
        }
        let deadline = FetchDeadline(request)
        let evaluator = try request.predicate.map { predicate in
            try PredicateEvaluator<CacheNode>(predicate, entity: entity, watching: deadline,
                                              resolve: { [unowned self] in self.cacheNode(for: $0) })
        }
        refreshIndexes()
        let included = nodeTables.filter { name, nodes in
            guard !nodes.isEmpty, let nodeEntity = model.entity(named: name) else { return false }
            return request.includes(nodeEntity, requested: entity)
        }.map(\.key).sorted()
        var examined = 0
        func judge(_ node: CacheNode) throws -> Bool {
            try deadline?.check()
            examined += 1
            return try evaluator?.matches(node) ?? true
        }

        /// The index of every included entity on `key`, when each has a complete one.
        func indexes(on key: String) -> [AttributeIndex]? {
            guard !included.isEmpty else { return nil }  // no objects: the scan is as quick
            var found: [AttributeIndex] = []
            for name in included {
                guard let index = storeIndexes.index(ofEntity: name, key: key), index.isComplete else { return nil }
                found.append(index)
            }
            return found
        }
        let terms = IndexPlanner.terms(of: request.predicate).filter { indexes(on: $0.key) != nil }.sorted { $0.cost < $1.cost }
        /// Whether an object an index gave for `term` needs no judging: the predicate is the
        /// term alone, and the index's ranges hold exactly its matches.
        func isAnswered(by term: IndexTerm?) -> Bool {
            guard let term, term.isExact, case .comparison = request.predicate else { return false }
            return true
        }

        // An order an index gives, with a limit or a range of that index: walk it in order and
        // stop once the page is full.
        if request.sortDescriptors.count == 1, let order = request.sortDescriptors.first,
           order.comparison == .plain, included.count == 1, let index = indexes(on: order.keyPath)?.first, index.nanCount == 0,
           !(terms.first.map { $0.cost <= 1 && $0.key != order.keyPath } ?? false),
           request.fetchLimit > 0 || terms.contains(where: { $0.key == order.keyPath && $0.ranges.count == 1 }) {
            let term = terms.first { $0.key == order.keyPath && $0.ranges.count == 1 }
            let range = term.map { $0.ranges[0].positions(in: index.tree) } ?? index.tree.startPosition..<index.tree.endPosition
            let wanted = max(0, request.fetchOffset).addingReportingOverflow(request.fetchLimit)
            let stopAt = wanted.overflow || request.fetchLimit <= 0 ? Int.max : wanted.partialValue
            var matched = 0
            var snapshots: [ObjectSnapshot] = []
            let answered = isAnswered(by: term)
            try index.tree.walk(range, backwards: !order.ascending) { entry in
                if answered {
                    try deadline?.check()
                    examined += 1
                } else if try !judge(entry.node) {
                    return true
                }
                matched += 1
                if matched > request.fetchOffset { snapshots.append(entry.node.snapshot) }
                return matched < stopAt
            }
            let plan = FetchPlan(access: .index(name: index.name, key: index.key, operation: term?.operation ?? "ORDER BY"),
                                 isSortedByIndex: true, objectsExamined: examined)
            return (StoreFetchResult(snapshots: snapshots, isSortedAndPaged: true), plan)
        }

        // One term an index answers: judge only the objects in its ranges.
        if let term = terms.first, let found = indexes(on: term.key), let first = found.first {
            var snapshots: [ObjectSnapshot] = []
            var seen = Set<ObjectIdentifier>()
            let answered = isAnswered(by: term)
            for index in found {
                for range in term.ranges {
                    try index.tree.walk(range.positions(in: index.tree), backwards: false) { entry in
                        // IN {1, 1.0} names one range twice: each object once.
                        if term.ranges.count > 1, !seen.insert(ObjectIdentifier(entry.node)).inserted { return true }
                        if answered {
                            try deadline?.check()
                            examined += 1
                            snapshots.append(entry.node.snapshot)
                        } else if try judge(entry.node) {
                            snapshots.append(entry.node.snapshot)
                        }
                        return true
                    }
                }
            }
            let plan = FetchPlan(access: .index(name: first.name, key: term.key, operation: term.operation), objectsExamined: examined)
            return (StoreFetchResult(snapshots: snapshots), plan)
        }

        return try scan()

        func scan() throws -> (result: StoreFetchResult, plan: FetchPlan) {
            var snapshots: [ObjectSnapshot] = []
            for name in included {
                guard let nodes = nodeTables[name] else { continue }
                snapshots.reserveCapacity(snapshots.count + nodes.count)
                try nodes.forEach { node in
                    if try judge(node) { snapshots.append(node.snapshot) }
                }
            }
            return (StoreFetchResult(snapshots: snapshots), FetchPlan(access: .scan, objectsExamined: examined))
        }
    }
}
