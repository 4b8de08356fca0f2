/// The text `docserver migrate` prints: what a step changes, entity by entity and property by
/// property, with the numbers of objects.
enum MigrationReport {
    static func describe(_ step: MigrationMapping, counts: MigrationCounts?, number: Int, of total: Int) -> String {
        var lines = ["step \(number) of \(total): \(step.sourceLabel) -> \(step.destinationLabel)"]
        func objects(_ sourceName: String?) -> String {
            guard let counts, let sourceName else { return "" }
            let count = counts.objectsBySourceEntity[sourceName] ?? 0
            return " (\(count) \(count == 1 ? "object" : "objects"))"
        }
        for entity in step.entities {
            if entity.sourceName == nil {
                lines.append("  entity \(entity.name): added")
                continue
            }
            guard entity.hasChanges else { continue }
            lines.append("  entity \(entity.name)\(objects(entity.sourceName)):")
            for change in entity.changes { lines.append("    \(change)") }
            for property in entity.properties {
                let changes = property.changes.filter { change in
                    if case .renamed = change { return false }
                    return true
                }
                var words = changes.map(\.description)
                if let source = property.sourceName, source != property.name { words.insert("renamed from \"\(source)\"", at: 0) }
                guard !words.isEmpty else { continue }
                if let applied = counts?.defaultsApplied[MigrationCounts.key(entity.name, property.name)], applied > 0 {
                    words.append("default applied to \(applied) \(applied == 1 ? "object" : "objects")")
                }
                lines.append("    \"\(property.name)\": \(words.joined(separator: "; "))")
            }
            for removed in entity.removedProperties { lines.append("    \"\(removed)\": removed (its values are dropped)") }
        }
        for removed in step.removedEntities {
            lines.append("  entity \(removed): removed\(objects(removed).isEmpty ? "" : ", its objects dropped" + objects(removed))")
        }
        for loss in counts?.losses ?? [] { lines.append("  lost, as accepted: \(loss)") }
        if step.isIdentity { lines.append("  no change to the data (only the version hashes are updated)") }
        return lines.joined(separator: "\n")
    }
}
