/// Why a JSON store could not be migrated (besides a ``GraphCore/MigrationError`` about the
/// models or the data, and the store's own ``JSONStoreError``s).
public enum StoreMigrationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// There is no store file to migrate.
    case noStore(path: String)
    /// No model version was given.
    case noVersions
    /// A backup by that name exists and differs from the store: it is never overwritten.
    case backupExists(path: String)

    /// The migrated store, written beside the store, did not pass the checks `docserver check`
    /// makes; the store is unchanged. A bug of the migration: `reason` is the check's error.
    case migratedStoreInvalid(reason: String)
    /// Model versions between the store's and the destination could not be read: the
    /// migration is not run around them (a step of theirs could rename or convert data).
    case unreadableVersionOnPath(names: [String])

    /// A message saying what is wrong and what to do.
    public var description: String {
        switch self {
        case .noStore(let path):
            return "\(path): no store file to migrate"
        case .noVersions:
            return "no model version given to migrate to"
        case .migratedStoreInvalid(let reason):
            return "the migrated store does not pass the store's checks, so it does not replace the store (which is unchanged): "
                + "\(reason). This is a fault of the migration: please report it with the two model versions"
        case .unreadableVersionOnPath(let names):
            return "the model version(s) \(names.map { "'\($0)'" }.joined(separator: ", ")) between the store's version and the "
                + "destination cannot be read, and a migration is never run around a version: make them readable (open the "
                + "model in a current Xcode) or remove them from the bundle if no store was ever written with them"
        case .backupExists(let path):
            return "\(path) exists and is not a copy of the store: move it away (it is never overwritten), then migrate again"
        }
    }
}
