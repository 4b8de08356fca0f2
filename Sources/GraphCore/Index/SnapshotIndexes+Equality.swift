extension SnapshotIndexes {
    /// The objects `predicate` matches among those of `entity`, when the predicate is one
    /// equality an index answers exactly, without planning the fetch: the lookup of a key
    /// by value (an e-mail, an external key), which a server answers many times a second.
    ///
    /// The predicate must be `key == constant`: a plain comparison (no `[c]`/`[d]`, no `ANY`)
    /// of an attribute of `entity` that is an integer with an integer constant, or a string
    /// with a string constant (so that judging it could raise no error a fetch would report).
    /// The entity must be concrete without sub-entities, and one of its indexes must begin with
    /// that attribute, unfolded, and cover every object. Then the index's entries of that key
    /// are exactly the matches, as the planner's walk finds them.
    ///
    /// - Returns: the matches' references in the index's order (a compound index orders
    ///   them by its other elements first) and the plan, as ``SnapshotFetch`` would give
    ///   it; or nil when the predicate is not such an equality or more than `limit` objects
    ///   match: plan it as any fetch.
    public func equalityMatches(_ predicate: Predicate?, ofEntity entity: EntityDescription,
                                atMost limit: Int) -> (references: [ReferenceObject], plan: FetchPlan)? {
        guard case .comparison(let comparison) = predicate, comparison.op == .equal, comparison.options.isEmpty,
              comparison.modifier == .direct, case .keyPath(let key) = comparison.left, case .constant(let value) = comparison.right,
              !entity.isAbstract, entity.subentityNames.isEmpty,
              case .attribute(let attribute) = entity.property(named: key) else { return nil }
        switch (attribute.type, value) {
        case (.int16, .int), (.int32, .int), (.int64, .int), (.string, .string): break
        default: return nil
        }
        guard let point = IndexKey(value),
              let index = indexes(ofEntity: entity.name).first(where: { index in
                  index.unindexedCount == 0 && index.definition.elements.first.map { $0.key == key && $0.folding.isEmpty } == true
              }) else { return nil }
        var references: [ReferenceObject] = []
        var tooMany = false
        // An integer or a string has its own key (the planner's point term for it): the
        // index's entries of that first key are exactly the matches.
        index.tree.walk(firstKey: point) { entry in
            guard references.count < limit else {
                tooMany = true
                return false
            }
            references.append(entry.reference)
            return true
        }
        if tooMany { return nil }
        return (references, FetchPlan(access: .index(name: index.definition.name, key: key, operation: "=="),
                                      objectsExamined: references.count))
    }
}
