import Foundation

/// One call from a model to a ready context: it makes the coordinator, opens a store by
/// its type name and hands back a context.
///
/// ```swift
/// let container = try PersistentContainer(model: model)                  // in memory
/// let container = try PersistentContainer(modelFile: modelURL, storeType: "JSON", storeURL: url)
/// let context = container.viewContext
/// ```
public final class PersistentContainer {
    /// The model of the container's objects.
    public let model: ObjectModel
    /// The coordinator that holds the container's store.
    public let coordinator: StoreCoordinator
    /// The container's main context, for the isolation domain that made the container.
    public let viewContext: ObjectContext

    /// Opens a store of a registered type (`"InMemory"` by default) for `model`.
    ///
    /// - Parameters:
    ///   - model: The model of the container's objects.
    ///   - storeType: The name the store's class is registered under (``StoreRegistry``).
    ///   - storeURL: Where the store lives; nil for a store without a location.
    ///   - options: Options for opening the store.
    /// - Throws: the errors of ``StoreCoordinator/addPersistentStore(type:configuration:at:options:)``.
    public init(model: ObjectModel, storeType: String = "InMemory", storeURL: URL? = nil, options: StoreOptions = StoreOptions()) throws {
        self.model = model
        self.coordinator = StoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: storeType, at: storeURL, options: options)
        self.viewContext = ObjectContext(coordinator: coordinator)
    }

    /// Loads the model from a JSON model file (`docs/MODEL.md`), then opens the store.
    ///
    /// - Throws: a ``ModelError`` for the model file; the errors of
    ///   ``StoreCoordinator/addPersistentStore(type:configuration:at:options:)``.
    public convenience init(modelFile: URL, storeType: String = "InMemory", storeURL: URL? = nil, options: StoreOptions = StoreOptions()) throws {
        try self.init(model: try ObjectModel(contentsOf: modelFile), storeType: storeType, storeURL: storeURL, options: options)
    }

    /// A container whose store lives in memory only, for tests and previews.
    ///
    /// - Throws: the errors of ``StoreCoordinator/addPersistentStore(type:configuration:at:options:)``.
    public static func inMemory(model: ObjectModel) throws -> PersistentContainer {
        try PersistentContainer(model: model, storeType: "InMemory")
    }

    /// A new context on the container's coordinator, for the caller's isolation domain.
    public func newContext() -> ObjectContext { ObjectContext(coordinator: coordinator) }

    /// A new context in an isolation domain of its own.
    public func newBackgroundContext() -> BackgroundContext { BackgroundContext(coordinator: coordinator) }
}
