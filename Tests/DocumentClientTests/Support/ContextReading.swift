import GraphCore

/// Short ways to read what a context holds, for expectations.
extension ObjectContext {
    /// Every object of `entity`, sorted by `key` when given.
    func all(_ entity: String, sortedBy key: String? = nil) throws -> [ManagedObject] {
        try fetch(FetchRequest(entityName: entity, sortDescriptors: key.map { [SortDescriptor($0)] } ?? []))
    }

    /// How many objects of `entity` there are.
    func count(_ entity: String) throws -> Int {
        try count(for: FetchRequest(entityName: entity))
    }
}

extension ManagedObject {
    /// A string attribute.
    func string(_ key: String) throws -> String { try get(key) }

    /// The IDs a to-many relationship holds, in its order.
    func ids(_ key: String) throws -> [ObjectID] {
        try objects(forKey: key).map(\.objectID)
    }

    /// The ID a to-one relationship holds, or nil.
    func id(_ key: String) throws -> ObjectID? {
        try object(forKey: key)?.objectID
    }
}

/// The values of a string attribute of each object, in order.
func strings(_ key: String, of objects: [ManagedObject]) throws -> [String] {
    try objects.map { try $0.get(key) }
}

/// The conflicts of a save that failed with ``GraphError/conflict(_:)``; nil for another error.
func conflicts(of error: (any Error)?) -> [Conflict]? {
    guard case .conflict(let conflicts)? = error as? GraphError else { return nil }
    return conflicts
}

/// The failures of a save that failed with ``GraphError/validation(_:)``; nil for another error.
func validationFailures(of error: (any Error)?) -> [ValidationFailure]? {
    guard case .validation(let failures)? = error as? GraphError else { return nil }
    return failures
}
