/// The steps that take a store from the model version it was written with to the newest,
/// one lightweight mapping per pair of consecutive versions (v1 → v2 → v3), run in memory one
/// after the other so that the store is written once.
///
/// ```swift
/// let plan = try MigrationPlan(versions: [v1, v2, v3], from: 0)
/// let migrated = try plan.migrate(nodes).nodes
/// ```
public struct MigrationPlan: Sendable {
    /// The mappings, oldest first; empty when the store is at the newest version already.
    public let steps: [MigrationMapping]

    /// The steps from `versions[sourceIndex]` to the last of `versions`; versions with the same
    /// version hash as the one before are skipped.
    ///
    /// - Parameters:
    ///   - versions: The model versions, oldest first, the destination last.
    ///   - sourceIndex: The version the store was written with.
    ///   - labels: What to call each version in messages (a file name); by default its hash.
    /// - Throws: the ``MigrationError/notLightweight(from:to:refusals:)`` of the first step that is not lightweight.
    public init(versions: [ObjectModel], from sourceIndex: Int, labels: [String]? = nil) throws(MigrationError) {
        var steps: [MigrationMapping] = []
        guard versions.indices.contains(sourceIndex) else {
            self.steps = []
            return
        }
        func label(_ index: Int) -> String {
            let hash = MigrationMapping.label(of: versions[index])
            guard let labels, labels.indices.contains(index) else { return hash }
            return "\(labels[index]) (\(hash))"
        }
        var current = sourceIndex
        for next in versions.indices where next > sourceIndex {
            if versions[next].versionHash == versions[current].versionHash { continue }
            steps.append(try MigrationMapping.infer(from: versions[current], to: versions[next],
                                                    sourceLabel: label(current), destinationLabel: label(next)))
            current = next
        }
        self.steps = steps
    }

    /// The steps given.
    public init(steps: [MigrationMapping]) {
        self.steps = steps
    }

    /// Runs every step over the store's objects, in memory.
    ///
    /// - Returns: The objects in the newest model, and a report of what changed (entity by
    ///   entity, property by property, with the numbers of objects).
    /// - Throws: ``MigrationError/dataDoesNotFit(from:to:refusals:)`` of the first step the data does not fit.
    /// - Parameter acceptingLosses: The data the steps may drop (``MigrationLoss``); by default
    ///   none (``MigrationError/wouldLoseData(from:to:losses:)`` names each loss).
    public func migrate(_ nodes: [CacheNode],
                        acceptingLosses: MigrationLossAcceptance = .none) throws(MigrationError) -> (nodes: [CacheNode], report: String) {
        var current = nodes
        var sections: [String] = []
        for (index, step) in steps.enumerated() {
            let (migrated, counts) = try step.migrateCounting(current, acceptingLosses: acceptingLosses)
            sections.append(MigrationReport.describe(step, counts: counts, number: index + 1, of: steps.count))
            current = migrated
        }
        if steps.isEmpty { sections.append("nothing to migrate: the store is at the newest model version") }
        return (current, sections.joined(separator: "\n"))
    }
}
