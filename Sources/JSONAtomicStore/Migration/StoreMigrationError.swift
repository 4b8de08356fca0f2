/// Why a JSON store could not be migrated (besides a ``GraphCore/MigrationError`` about the
/// models or the data, and the store's own ``JSONStoreError``s).
public enum StoreMigrationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// There is no store file to migrate.
    case noStore(path: String)
    /// No model version was given.
    case noVersions
    /// A backup by that name exists and differs from the store: it is never overwritten.
    case backupExists(path: String)

    /// A message saying what is wrong and what to do.
    public var description: String {
        switch self {
        case .noStore(let path):
            return "\(path): no store file to migrate"
        case .noVersions:
            return "no model version given to migrate to"
        case .backupExists(let path):
            return "\(path) exists and is not a copy of the store: move it away (it is never overwritten), then migrate again"
        }
    }
}
