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
        try self.init(versions: versions, from: sourceIndex, labels: labels, versionNames: [], mappingModels: [])
    }

    /// The steps from `versions[sourceIndex]` to the last of `versions`, each run with the
    /// mapping model made for it where one is given, else inferred (`docs/MODEL.md`, "Mapping models").
    ///
    /// A mapping model is for the step from version `i` to version `j` (`i < j`) when the
    /// model paths it records end in `versionNames[i]` and `versionNames[j]` (and name the
    /// bundle `bundleName`, when both name one); from a version with mapping models, the one to
    /// the newest version is taken, and the versions between are skipped, as Core Data migrates
    /// straight to the current version with a mapping model.
    ///
    /// - Throws: ``MigrationError/mappingModelMatchesNoVersion(mappingModel:source:destination:versions:)``
    ///   for a mapping model that is for no pair of the versions; the
    ///   ``MigrationError/mappingModelRefused(mappingModel:from:to:refusals:)`` of a mapping model
    ///   on the path that cannot be run here; the ``MigrationError/notLightweight(from:to:refusals:)``
    ///   of the first inferred step that is not lightweight.
    public init(versions: [ObjectModel], from sourceIndex: Int, labels: [String]? = nil, versionNames: [String],
                mappingModels: [XcodeMappingModel], bundleName: String? = nil) throws(MigrationError) {
        var steps: [MigrationMapping] = []
        func pair(of mappingModel: XcodeMappingModel) -> (Int, Int)? {
            for i in versionNames.indices {
                for j in versionNames.indices where j > i
                    && mappingModel.maps(from: versionNames[i], to: versionNames[j], bundle: bundleName) {
                    return (i, j)
                }
            }
            return nil
        }
        var pairs: [(from: Int, to: Int, model: XcodeMappingModel)] = []
        for mappingModel in mappingModels {
            guard let (i, j) = pair(of: mappingModel) else {
                throw .mappingModelMatchesNoVersion(mappingModel: mappingModel.name, source: mappingModel.sourceVersion,
                                                    destination: mappingModel.destinationVersion, versions: versionNames)
            }
            if let other = pairs.first(where: { $0.from == i && $0.to == j }) {
                throw .mappingModelsConflict(first: other.model.name, second: mappingModel.name,
                                             source: versionNames[i], destination: versionNames[j])
            }
            pairs.append((i, j, mappingModel))
        }
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
        var next = sourceIndex + 1
        while versions.indices.contains(next) {
            if let mapped = pairs.filter({ $0.from == current && versions.indices.contains($0.to) }).max(by: { $0.to < $1.to }) {
                steps.append(try MigrationMapping.fromMappingModel(mapped.model, source: versions[current], destination: versions[mapped.to],
                                                                   sourceLabel: label(current), destinationLabel: label(mapped.to)))
                current = mapped.to
                next = mapped.to + 1
                continue
            }
            if versions[next].versionHash != versions[current].versionHash {
                steps.append(try MigrationMapping.infer(from: versions[current], to: versions[next],
                                                        sourceLabel: label(current), destinationLabel: label(next)))
                current = next
            }
            next += 1
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
    public func migrate(_ nodes: [ObjectSnapshot],
                        acceptingLosses: MigrationLossAcceptance = .none) throws(MigrationError) -> (nodes: [ObjectSnapshot], report: String) {
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
