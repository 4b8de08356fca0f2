/// Store types by name, as Core Data's `registerStoreClass(_:forStoreType:)`.
///
/// ```swift
/// StoreRegistry.register(JSONAtomicStore.self, as: "JSON")
/// try coordinator.addPersistentStore(type: "JSON", at: url)
/// ```
///
/// `"InMemory"` (``InMemoryStore``) is registered from the start.
public enum StoreRegistry {
    private static let types = Locked<[String: PersistentStore.Type]>(["InMemory": InMemoryStore.self])

    /// Registers a store class under a type name (replacing any class registered before under it).
    public static func register(_ type: PersistentStore.Type, as name: String) {
        types.withLock { $0[name] = type }
    }

    /// The class registered under a name.
    public static func storeClass(named name: String) -> PersistentStore.Type? {
        types.withLock { $0[name] }
    }

    /// Every registered type name.
    public static var registeredNames: [String] {
        types.withLock { Array($0.keys).sorted() }
    }
}
