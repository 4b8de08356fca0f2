/// The stores every behaviour test runs on: the same test, the same expectations, three stores.
///
/// ```swift
/// @Test(arguments: StoreKind.allCases)
/// func savedObjectsAreFetchedAgain(kind: StoreKind) throws {
///     let store = try StoreFixture(kind)
///     …
/// }
/// ```
enum StoreKind: String, CaseIterable, Sendable, CustomStringConvertible {
    /// GraphCore's `InMemoryStore` (`"InMemory"`).
    case inMemory
    /// `JSONAtomicStore` (`"JSON"`) on a file in a temporary directory.
    case json
    /// `RemoteStore` (`"DocumentServer"`) talking to a `docserver serve` process the test starts.
    case documentServer

    var description: String { rawValue }

    /// Whether the objects outlive the store: a reopened store still holds them. An in-memory
    /// store's objects live only as long as the store itself.
    var persists: Bool { self != .inMemory }

    /// Whether a second context works through a coordinator and a connection of its own (the
    /// network case), rather than through the same coordinator as the first.
    var isRemote: Bool { self == .documentServer }
}
