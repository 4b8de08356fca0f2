/// A context that lives in an isolation domain of its own (an actor), for work off the
/// caller's thread. Its objects never leave it; pass ``ObjectID``s in and out.
///
/// ```swift
/// let background = container.newBackgroundContext()
/// let id = try await background.perform { context in
///     let song = try context.insert("Song")
///     try song.set("title", "Blue")
///     try context.save()
///     return song.objectID
/// }
/// ```
public actor BackgroundContext {
    private let context: ObjectContext

    /// A background context that reads and saves through `coordinator`.
    public init(coordinator: StoreCoordinator) {
        context = ObjectContext(coordinator: coordinator)
    }

    /// Runs `body` on this actor with its context; the result must be `Sendable`
    /// (an ``ObjectID``, values, counts), never a ``ManagedObject``.
    ///
    /// - Throws: what `body` throws.
    public func perform<T: Sendable>(_ body: @Sendable (ObjectContext) throws -> T) throws -> T {
        try body(context)
    }
}
