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

    /// The matching objects, through an index when one fits (see `docs/PREDICATES.md`, "Fetch
    /// plans"), else by scanning every object of the entity and its sub-entities.
    func execute(_ request: FetchRequest) throws -> (result: StoreFetchResult, plan: FetchPlan) {
        guard let model, let entity = model.entity(named: request.entityName) else {
            throw GraphError.unknownEntity(request.entityName)
        }
        let deadline = FetchDeadline(request)
        let evaluator = try request.predicate.map { predicate in
            try PredicateEvaluator<ObjectSnapshot>(predicate, entity: entity, watching: deadline,
                                              resolve: { [unowned self] in self.cacheNode(for: $0) })
        }
        refreshIndexes()
        let included = nodeTables.filter { name, nodes in
            guard !nodes.isEmpty, let nodeEntity = model.entity(named: name) else { return false }
            return request.includes(nodeEntity, requested: entity)
        }.map(\.key).sorted()
        var examined = 0
        func judge(_ node: ObjectSnapshot) throws -> Bool {
            try deadline?.check()
            examined += 1
            return try evaluator?.matches(node) ?? true
        }
        let choice: IndexChoice<ResolvedSnapshotIndex> = IndexPlanner.choose(request, included: included) { [storeIndexes] name in
            let found = storeIndexes.indexes(ofEntity: name)
            if found.isEmpty { return [] }
            let snapshot = lookup(ofEntity: name)
            return found.map { ResolvedSnapshotIndex(index: $0, snapshot: snapshot) }
        }
        var snapshots: [ObjectSnapshot] = []
        if let plan = try IndexPlanner.run(choice, request, deadline: deadline,
                                           matches: { try evaluator?.matches($0) ?? true },
                                           identity: \.objectID, emit: { snapshots.append($0) }) {
            return (StoreFetchResult(snapshots: snapshots, isSortedAndPaged: plan.isSortedByIndex), plan)
        }

        return try scan()

        func scan() throws -> (result: StoreFetchResult, plan: FetchPlan) {
            var snapshots: [ObjectSnapshot] = []
            for name in included {
                guard let nodes = nodeTables[name] else { continue }
                snapshots.reserveCapacity(snapshots.count + nodes.count)
                try nodes.forEach { node in
                    if try judge(node) { snapshots.append(node) }
                }
            }
            return (StoreFetchResult(snapshots: snapshots), FetchPlan(access: .scan, objectsExamined: examined))
        }
    }
}
