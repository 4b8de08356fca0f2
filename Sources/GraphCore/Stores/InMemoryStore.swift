/// An atomic store that never touches the disk: everything lives as long as the
/// coordinator. Registered as `"InMemory"`; the store of choice for tests.
public final class InMemoryStore: AtomicStore, @unchecked Sendable {
    // Sendable for the same reason as every store: its coordinator makes one call at a time into it.
}
