import Foundation

extension ManagedObject: PredicateRecord {
    public func predicateValue(at index: Int) throws -> Value {
        if isFault { try fulfill() }
        return storage[index]
    }
}

extension ObjectContext {
    /// The objects that match the request, including this context's unsaved changes:
    /// inserted objects that match are in, deleted ones are out, changed ones are judged
    /// by their current values.
    public func fetch(_ request: FetchRequest) throws -> [ManagedObject] {
        let entity = try model.requireEntity(request.entityName)
        let resolve: (ObjectID) throws -> ManagedObject? = { [unowned self] id in
            let object = self.object(with: id)
            do { try object.fulfill() } catch GraphError.objectNotFound { return nil }
            return object
        }
        let evaluator = try request.predicate.map { try PredicateEvaluator<ManagedObject>($0, entity: entity, resolve: resolve) }
        let found = try fetchFromSource(request)

        var results: [ManagedObject] = []
        results.reserveCapacity(found.snapshots.count + found.faults.count)
        var changedIncluded = Set<ObjectIdentifier>()
        if let first = found.snapshots.first?.objectID ?? found.faults.first {
            registered.reserveCapacity(found.snapshots.count + found.faults.count, like: first)
        }
        func include(_ object: ManagedObject) throws {
            if object.hasChanges {
                guard !object.isDeleted, try evaluator?.matches(object) ?? true else { return }
                changedIncluded.insert(ObjectIdentifier(object))
            }
            results.append(object)
        }
        for snapshot in found.snapshots { try include(register(snapshot)) }
        for id in found.faults { try include(object(with: id)) }
        for object in changeList where object.hasChanges && !object.isDeleted {
            guard request.includes(object.entity, requested: entity),
                  !changedIncluded.contains(ObjectIdentifier(object)),
                  try evaluator?.matches(object) ?? true
            else { continue }
            changedIncluded.insert(ObjectIdentifier(object))
            results.append(object)
        }
        if !request.sortDescriptors.isEmpty {
            results = try RecordSorter(request.sortDescriptors, entity: entity, resolve: resolve).sorted(results)
        }
        if request.fetchOffset > 0 { results = Array(results.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0, results.count > request.fetchLimit { results = Array(results.prefix(request.fetchLimit)) }
        return results
    }

    /// The objects that match the request, as instances of a registered class.
    ///
    /// ```swift
    /// let songs = try context.fetch(FetchRequest(entityName: "Song"), as: Song.self)
    /// ```
    public func fetch<T: ManagedObject>(_ request: FetchRequest, as type: T.Type) throws -> [T] {
        try fetch(request).map { object in
            guard let typed = object as? T else {
                throw GraphError.typeMismatch(entity: object.entity.name, key: "(class)", expected: "\(T.self)",
                                              got: "\(Swift.type(of: object))")
            }
            return typed
        }
    }

    /// How many objects match the request, unsaved changes included.
    public func count(for request: FetchRequest) throws -> Int {
        var unlimited = request
        unlimited.sortDescriptors = []
        return try fetch(unlimited).count
    }

    /// What the source (the parent context or the stores) holds for the request, before
    /// this context's changes.
    private func fetchFromSource(_ request: FetchRequest) throws -> StoreFetchResult {
        var unlimited = request
        unlimited.sortDescriptors = []
        unlimited.fetchLimit = 0
        unlimited.fetchOffset = 0
        if let parent {
            let objects = try parent.fetch(unlimited)
            for object in objects where object.isFault { try object.fulfill() }
            return StoreFetchResult(snapshots: objects.map { object in
                ObjectSnapshot(objectID: object.objectID, version: object.version, values: object.storage)
            })
        }
        return try coordinator.execute(unlimited)
    }
}
