import Foundation
import GraphCore

/// The checks `docserver check` makes, run on a migrated store file before it replaces the
/// store: it loads with the destination model (syntax, shape, value types, required values,
/// references of the right entity, inverses that agree, counts) and keeps the model's
/// uniqueness constraints. A migration can then never leave a store that does not open.
enum MigratedStoreCheck {
    /// Throws ``StoreMigrationError/migratedStoreInvalid(reason:)`` when the file at `path`
    /// does not pass.
    static func check(path: String, model: ObjectModel) throws {
        let coordinator = StoreCoordinator(model: model)
        let store = try JSONAtomicStore(coordinator: coordinator, configurationName: nil,
                                        url: URL(fileURLWithPath: path), options: StoreOptions(isReadOnly: true))
        do {
            try withExtendedLifetime(coordinator) {
                try store.loadMetadata()
                if let violation = store.firstUniquenessViolation() { throw violation }
            }
        } catch {
            throw StoreMigrationError.migratedStoreInvalid(reason: "\(error)")
        }
    }
}
