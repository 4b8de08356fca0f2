import GraphCore

extension ReadState {
    /// This state with `snapshots` (objects read from the database, as the commit it holds or
    /// a later one left them) kept too, at the same commit number: a bounded cache's state
    /// filled after its misses.
    func admitting(_ snapshots: [ObjectSnapshot]) -> ReadState {
        var next = self
        for snapshot in snapshots { next.store(snapshot) }
        return next
    }

    /// This state without the objects `ids` (a bounded cache's state letting them go: they
    /// still exist, and are read from the database again when asked for).
    func evicting(_ ids: [ObjectID]) -> ReadState {
        var next = self
        for id in ids { next.forget(id) }
        return next
    }
}
