import Foundation

extension ManagedObject: PredicateRecord {
    /// The value at a property index, firing the fault first if needed.
    public func predicateValue(at index: Int) throws -> Value {
        if isFault { try fulfill() }
        return storage[index]
    }
}

extension ObjectContext {
    /// The objects that match the request, including this context's unsaved changes:
    /// inserted objects that match are in, deleted ones are out, changed ones are judged
    /// by their current values. Sorting, offset and limit apply after that.
    ///
    /// - Throws: ``PredicateError`` for a predicate that does not fit the entity,
    ///   ``GraphError`` for an unknown entity or sort key, or a store's failure.
    public func fetch(_ request: FetchRequest) throws -> [ManagedObject] {
        try fetchObjects(request, needing: .objects)
    }

    /// The objects of ``fetch(_:)``, asking the store for `resultType` (IDs, when only the
    /// objects' IDs will be used).
    private func fetchObjects(_ request: FetchRequest, needing resultType: FetchResultType) throws -> [ManagedObject] {
        let entity = try model.requireEntity(request.entityName)
        var objects: [ManagedObject] = []
        let asFaults = request.returnsObjectsAsFaults
        var request = request
        request.resultType = resultType
        let ordered = try forEachMatch(request, entity: entity, registering: !asFaults, reserve: { count, sample in
            objects.reserveCapacity(count)
            registered.reserveCapacity(registered.count + count, like: sample)
        }) { candidate in
            switch candidate {
            case .object(let object): objects.append(object)
            case .snapshot(let snapshot): objects.append(asFaults ? object(with: snapshot.objectID) : register(snapshot))
            case .fault(let id): objects.append(object(with: id))
            }
        }
        if ordered { return objects }
        if !request.sortDescriptors.isEmpty {
            let wanted = max(0, request.fetchOffset).addingReportingOverflow(request.fetchLimit)
            if request.fetchLimit > 0, !wanted.overflow, TopKSelector<ManagedObject>.isWorthIt(k: wanted.partialValue, of: objects.count) {
                // A small page of many: keep the best offset + limit in a heap, no full sort.
                objects = try TopKSelector(request.sortDescriptors, entity: entity, resolve: relatedObject).first(wanted.partialValue, of: objects)
                try FetchDeadline(request)?.checkNow()
                return Self.page(objects, request)
            }
            objects = try RecordSorter(request.sortDescriptors, entity: entity, resolve: relatedObject).sorted(objects)
            try FetchDeadline(request)?.checkNow()  // a sort that ran past the deadline answers late: refuse
        }
        return Self.page(objects, request)
    }

    /// The objects that match the request, as instances of a registered class.
    ///
    /// ```swift
    /// let songs = try context.fetch(FetchRequest(entityName: "Song"), as: Song.self)
    /// ```
    ///
    /// - Throws: the errors of ``fetch(_:)``; ``GraphError/typeMismatch(entity:key:expected:got:)``
    ///   when a result is not a `T` (its entity has another class, or none registered).
    public func fetch<T: ManagedObject>(_ request: FetchRequest, as type: T.Type) throws -> [T] {
        try fetch(request).map { object in
            guard let typed = object as? T else {
                throw GraphError.typeMismatch(entity: object.entity.name, key: "(class)", expected: "\(T.self)",
                                              got: "\(Swift.type(of: object))")
            }
            return typed
        }
    }

    /// The IDs of the objects that match the request (unsaved changes included). Without
    /// sort descriptors no object is made for the results.
    ///
    /// - Throws: the errors of ``fetch(_:)``.
    public func fetchObjectIDs(_ request: FetchRequest) throws -> [ObjectID] {
        let entity = try model.requireEntity(request.entityName)
        if !request.sortDescriptors.isEmpty { return try fetchObjects(request, needing: .objectIDs).map(\.objectID) }
        var request = request
        request.resultType = .objectIDs
        var ids: [ObjectID] = []
        let ordered = try forEachMatch(request, entity: entity, registering: false, reserve: { count, _ in ids.reserveCapacity(count) }) { candidate in
            switch candidate {
            case .object(let object): ids.append(object.objectID)
            case .snapshot(let snapshot): ids.append(snapshot.objectID)
            case .fault(let id): ids.append(id)
            }
        }
        return ordered ? ids : Self.page(ids, request)
    }

    /// How many objects match the request, unsaved changes included, within its offset and
    /// limit. No object is made for the results.
    ///
    /// - Throws: the errors of ``fetch(_:)``.
    public func count(for request: FetchRequest) throws -> Int {
        let entity = try model.requireEntity(request.entityName)
        var request = request
        request.resultType = .count
        var count = 0
        var counted: Int?
        let ordered = try forEachMatch(request, entity: entity, registering: false, reserve: { _, _ in }, counted: { counted = $0 }) { _ in
            count += 1
        }
        if let counted { return counted }
        if ordered { return count }
        count = max(0, count - max(0, request.fetchOffset))
        return request.fetchLimit > 0 ? min(count, request.fetchLimit) : count
    }

    /// The matching objects as dictionaries of the request's ``FetchRequest/propertiesToFetch``
    /// (every attribute when nil), keyed by key path; nil values are left out, as Core Data does.
    ///
    /// ```swift
    /// request.propertiesToFetch = ["title", "album.title"]
    /// let rows = try context.fetchDictionaries(request)   // [["title": "So What", "album.title": "Kind of Blue"], …]
    /// ```
    ///
    /// - Throws: the errors of ``fetch(_:)``; ``GraphError/unknownKey(entity:key:)`` for a key
    ///   path in ``FetchRequest/propertiesToFetch`` the entity does not have.
    public func fetchDictionaries(_ request: FetchRequest) throws -> [[String: Value]] {
        let entity = try model.requireEntity(request.entityName)
        let keyPaths = request.propertiesToFetch ?? entity.attributes.map(\.name)
        let columns = try keyPaths.map { path in (path, try Self.propertyIndexes(path, in: entity)) }
        return try fetch(request).map { object in
            var row: [String: Value] = [:]
            for (path, indexes) in columns {
                var current: ManagedObject? = object
                var value = Value.null
                for (step, index) in indexes.enumerated() {
                    guard let record = current else { break }
                    value = try record.predicateValue(at: index)
                    if step < indexes.count - 1 {
                        if case .object(let id) = value { current = try relatedObject(id) } else { current = nil }
                        value = .null
                    }
                }
                if !value.isNull { row[path] = value }
            }
            return row
        }
    }

    // MARK: - Merging the source's results with unsaved changes

    /// A result before it becomes an object: a registered object, a snapshot the source
    /// gave, or an ID the source gave as a fault.
    enum FetchCandidate {
        case object(ManagedObject)
        case snapshot(ObjectSnapshot)
        case fault(ObjectID)
    }

    /// Calls `body` with each result of the request: what the source holds merged with this
    /// context's unsaved changes. `reserve` learns first how many there may be;
    /// `registering`: every snapshot becomes a registered object (the caller wants objects).
    ///
    /// When this context has no unsaved changes, the store gets the whole request and may
    /// sort and page the results itself, or only count them (then `counted` gets the number
    /// and `body` is not called). Returns whether the results came sorted and paged; if not,
    /// the caller sorts and pages them.
    @discardableResult
    func forEachMatch(_ request: FetchRequest, entity: EntityDescription, registering: Bool, reserve: (Int, ObjectID) -> Void,
                      counted: (Int) -> Void = { _ in }, _ body: (FetchCandidate) throws -> Void) throws -> Bool {
        mergeRemoteChangesIfNeeded()
        let deadline = FetchDeadline(request)
        let evaluator = try request.predicate.map {
            try PredicateEvaluator<ManagedObject>($0, entity: entity, watching: deadline, resolve: relatedObject)
        }
        let pending = request.includesPendingChanges
        // A predicate that follows relationships may see an unsaved change of a related
        // object that the source cannot: then every object is judged here.
        let judgeAllHere = pending && evaluator?.followsRelationships == true && changeList.contains(where: \.hasChanges)
        var source = request
        if judgeAllHere { source.predicate = nil }
        let found = try fetchFromSource(source)
        if let count = found.count {
            counted(count)
            return true
        }

        if let sample = found.snapshots.first?.objectID ?? found.faults.first {
            reserve(found.snapshots.count + found.faults.count, sample)
        }
        var included = Set<ObjectIdentifier>()
        func consider(_ object: ManagedObject) throws {
            try deadline?.check()
            if pending, object.hasChanges {
                guard !object.isDeleted, try evaluator?.matches(object) ?? true else { return }
                included.insert(ObjectIdentifier(object))
            } else if judgeAllHere, try !(evaluator?.matches(object) ?? true) {
                return
            }
            try body(.object(object))
        }
        for snapshot in found.snapshots {
            try deadline?.check()
            if registering {
                try consider(register(snapshot))  // the registered object if there is one, with its changes
            } else if let object = registered[snapshot.objectID] {
                try consider(object)
            } else if judgeAllHere {
                try consider(register(snapshot))
            } else {
                try body(.snapshot(snapshot))
            }
        }
        for id in found.faults {
            if let object = registered[id] {
                try consider(object)
            } else if judgeAllHere {
                try consider(object(with: id))
            } else {
                try body(.fault(id))
            }
        }
        guard pending else { return found.isSortedAndPaged }
        for object in changeList where object.hasChanges && !object.isDeleted {
            guard request.includes(object.entity, requested: entity),
                  !included.contains(ObjectIdentifier(object)),
                  try evaluator?.matches(object) ?? true
            else { continue }
            included.insert(ObjectIdentifier(object))
            try body(.object(object))
        }
        return found.isSortedAndPaged
    }

    /// The object a relationship value leads to, loaded; nil when it no longer exists.
    func relatedObject(_ id: ObjectID) throws -> ManagedObject? {
        let object = self.object(with: id)
        do { try object.fulfill() } catch GraphError.objectNotFound { return nil }
        return object
    }

    static func page<T>(_ items: [T], _ request: FetchRequest) -> [T] {
        var items = items
        if request.fetchOffset > 0 { items = Array(items.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0, items.count > request.fetchLimit { items = Array(items.prefix(request.fetchLimit)) }
        return items
    }

    /// Property indexes of a key path across to-one relationships (for dictionaries).
    static func propertyIndexes(_ path: String, in entity: EntityDescription) throws -> [Int] {
        var indexes: [Int] = []
        var current: EntityDescription? = entity
        let components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for (position, component) in components.enumerated() {
            guard let owner = current, let index = owner.index(ofProperty: component) else {
                throw GraphError.unknownKey(entity: current?.name ?? entity.name, key: component)
            }
            if position < components.count - 1 {
                guard case .relationship(let r) = owner.properties[index], !r.isToMany else {
                    throw GraphError.wrongKind(entity: owner.name, key: component, expected: "a to-one relationship inside a key path")
                }
            }
            indexes.append(index)
            current = owner.destination(ofPropertyAt: index)
        }
        return indexes
    }

    /// What the source (the parent context or the stores) holds for the request, before
    /// this context's changes. Only when this context has none can the stores sort, page
    /// and count: otherwise the changes must be merged into all of the source's matches.
    private func fetchFromSource(_ request: FetchRequest) throws -> StoreFetchResult {
        if parent == nil, !changeList.contains(where: \.hasChanges) {
            return try coordinator.execute(request)
        }
        var unlimited = request
        unlimited.sortDescriptors = []
        unlimited.fetchLimit = 0
        unlimited.fetchOffset = 0
        unlimited.includesPendingChanges = true
        unlimited.returnsObjectsAsFaults = false
        if unlimited.resultType == .count { unlimited.resultType = .objectIDs }
        if let parent {
            let objects = try parent.fetch(unlimited)
            for object in objects where object.isFault { try object.fulfill() }
            return StoreFetchResult(snapshots: objects.map { object in
                ObjectSnapshot(objectID: object.objectID, version: object.version, values: object.storage)
            })
        }
        var found = try coordinator.execute(unlimited)
        found.isSortedAndPaged = false  // it was asked for everything: the order and page are the context's
        return found
    }
}
