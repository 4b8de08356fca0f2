import DocumentServer
import ServerTestSupport
import Testing

/// The package's traits (Package.swift): `scripts/test.sh` builds with every one of them, and a
/// build without one refuses what needs it, at once, saying how to build with it.
@Suite struct PackageTraitTests {
    @Test func theTestsAreBuiltWithEveryTrait() {
        #expect(PackageTrait.enabled == PackageTrait.allCases,
                "the tests of TLS, users and PostgreSQL need every trait: swift build --build-tests --enable-all-traits (scripts/test.sh does)")
    }

    @Test func versionNamesTheTraitsOfTheBuild() throws {
        let result = try runDocServer(["--version"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("traits: \(PackageTrait.summary)"), "\(result.output)")
    }

    @Test(arguments: PackageTrait.allCases)
    func aMissingTraitsMessageNamesItAndHowToBuildWithIt(trait: PackageTrait) {
        let message = trait.missing("--option")
        #expect(message.hasPrefix("--option needs the \(trait.rawValue) trait"), "\(message)")
        // The command keeps the traits the build has.
        #expect(message.contains("--traits \(PackageTrait.allCases.filter { $0 == trait || $0.isEnabled }.map(\.rawValue).joined(separator: ","))"),
                "\(message)")
        #expect(message.contains("./scripts/build.sh --full"), "\(message)")
    }

    /// What each trait's absence refuses: a command line, and the option its message names.
    private static func refusals(of trait: PackageTrait) -> [(arguments: [String], names: String)] {
        let database = "postgresql://user@127.0.0.1:1/db"
        switch trait {
        case .tls: return [(["serve", "--port", "0", "--tls-cert", "cert.pem", "--tls-key", "key.pem"], "--tls-cert")]
        case .users:
            return [(["serve", "--port", "0", "--users", "users.json"], "--users"),
                    (["user", "add", "--users", "users.json", "--name", "ann"], "docserver user add")]
        case .postgreSQL:
            return [(["serve", "--port", "0", "--store", database], "postgresql://"),
                    (["check", "--store", database], "postgresql://"),
                    (["copy", "--from", "store.json", "--to", database], "postgresql://")]
        }
    }

    /// Only where a trait is missing (a plain `swift test`; scripts/test.sh has them all): each
    /// option that needs it fails before anything starts, with a message that names the trait.
    @Test(.enabled(if: PackageTrait.enabled != PackageTrait.allCases, "runs only in a build without some trait"))
    func anOptionThatNeedsAMissingTraitIsRefusedAtOnce() throws {
        for trait in PackageTrait.allCases where !trait.isEnabled {
            for refusal in Self.refusals(of: trait) {
                let result = try runDocServer(refusal.arguments, timeout: 10)
                #expect(result.status != 0, "docserver \(refusal.arguments.joined(separator: " ")) did not fail")
                #expect(result.errors.contains(refusal.names) && result.errors.contains("needs the \(trait.rawValue) trait"),
                        "docserver \(refusal.arguments.joined(separator: " ")): \(result.errors)")
            }
        }
    }
}
