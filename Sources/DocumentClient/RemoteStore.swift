import Foundation
import GraphCore

/// An incremental store whose objects live in a running `docserver`: registered as the
/// store type `"DocumentServer"`, added with a URL `docstore://host:port`.
public final class RemoteStore: IncrementalStore, @unchecked Sendable {
    /// The store type name, `"DocumentServer"`.
    public static let storeType = "DocumentServer"

    /// Registers this class as the store type `"DocumentServer"`.
    public static func register() {
        StoreRegistry.register(RemoteStore.self, as: storeType)
    }
}
