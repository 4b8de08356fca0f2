/// The package's traits (Package.swift): the parts a build may leave out, and which of them this
/// build has. The default build has none of them: a server of JSON store files, built without
/// BoringSSL (docs/OPERATIONS.md, "The first start"). An option that needs a trait the build lacks is refused
/// before anything starts, with ``missing(_:)``'s message, never ignored.
public enum PackageTrait: String, CaseIterable, Sendable {
    /// `postgresql://` stores (docserver's use of the PostgresStore target).
    case postgreSQL = "PostgreSQL"
    /// TLS on the line protocol, for the server and the Swift client.
    case tls = "TLS"
    /// The users file: its secrets are hashed with PBKDF2.
    case users = "Users"

    /// Whether this build has the trait.
    public var isEnabled: Bool {
        switch self {
        case .postgreSQL:
            #if PostgreSQL
            return true
            #else
            return false
            #endif
        case .tls:
            #if TLS
            return true
            #else
            return false
            #endif
        case .users:
            #if Users
            return true
            #else
            return false
            #endif
        }
    }

    /// The traits this build has, in declaration order.
    public static var enabled: [PackageTrait] { allCases.filter(\.isEnabled) }

    /// The traits for a log or `--version`: "PostgreSQL, TLS, Users", or "none (the default build)".
    public static var summary: String {
        enabled.isEmpty ? "none (the default build)" : enabled.map(\.rawValue).joined(separator: ", ")
    }

    /// Says that `feature` (an option, say "--tls-cert") needs this trait, which the build lacks,
    /// and how to build with it (and with the traits the build has).
    public func missing(_ feature: String) -> String {
        let has = Self.enabled.isEmpty ? "none" : Self.enabled.map(\.rawValue).joined(separator: ", ")
        let wanted = Self.allCases.filter { $0 == self || $0.isEnabled }.map(\.rawValue).joined(separator: ",")
        return "\(feature) needs the \(rawValue) trait, which this build of docserver was made without (its traits: \(has)). "
            + "Build with every trait: ./scripts/build.sh --full (./scripts/serve.sh --full to build and serve), "
            + "or with this one: swift build -c release --product docserver --traits \(wanted)"
    }
}
