import Foundation

extension StoreCoordinator {
    // MARK: - Changes made by other processes

    /// Tells the coordinator that another process changed objects of one of its stores (a
    /// store that learns of such commits, as `RemoteStore` does, calls this). Contexts over
    /// the coordinator merge it as they merge another context's save (see
    /// ``ObjectContext/mergeRemoteChanges()``), and the remote-change observers are called
    /// with it, on the calling thread.
    public func postRemoteChange(_ change: ContextDidSave) {
        guard !change.isEmpty else { return }
        remoteChanges.append(.change(change))
        for observer in remoteChangeObservers.withLock({ Array($0.handlers.values) }) { observer(change) }
    }

    /// Tells the coordinator that another process's changes were missed (a store lost track
    /// of them): contexts turn every object they hold without unsaved changes back into a
    /// fault, so that it is read again. Observers are called with an empty ``ContextDidSave``.
    public func postRemoteChangesMissed() {
        remoteChanges.append(.missed)
        for observer in remoteChangeObservers.withLock({ Array($0.handlers.values) }) { observer(ContextDidSave()) }
    }

    /// Calls `handler` with every change another process made to this coordinator's stores
    /// (as ``postRemoteChange(_:)`` reports it), on the thread that reports it (a store's
    /// network thread): hand the IDs to your context's isolation domain from there. An empty
    /// ``ContextDidSave`` means changes were missed and everything may have changed.
    ///
    /// - Returns: a token for ``removeRemoteChangeObserver(_:)``.
    @discardableResult
    public func addRemoteChangeObserver(_ handler: @escaping @Sendable (ContextDidSave) -> Void) -> Int {
        remoteChangeObservers.withLock { state in
            state.next += 1
            state.handlers[state.next] = handler
            return state.next
        }
    }

    /// Stops calling the observer that ``addRemoteChangeObserver(_:)`` returned `token` for.
    public func removeRemoteChangeObserver(_ token: Int) {
        _ = remoteChangeObservers.withLock { $0.handlers.removeValue(forKey: token) }
    }
}

/// The observers of remote changes, by token.
struct RemoteChangeObservers {
    var handlers: [Int: @Sendable (ContextDidSave) -> Void] = [:]
    var next = 0
}
