import Foundation
import GraphCore
import PostgresStore
import PostgresTestSupport
import Testing

/// TLS to the database, as libpq's `sslmode` and `sslrootcert` say, against the test cluster
/// started with `ssl=on` and a certificate made for it (``ClusterCertificates``).
@Suite(.enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct TLSTests {
    /// The URL of a new database with these query parameters, on `host`.
    private func url(_ parameters: [String: String], host: String = "127.0.0.1") throws -> URL {
        var components = try #require(URLComponents(url: try PostgresCluster.newDatabase(), resolvingAgainstBaseURL: false))
        components.host = host
        components.queryItems = parameters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        return try #require(components.url)
    }

    /// Whether the connections to the fixture's database (the store's, open after a save) use TLS.
    private func encrypted(_ fixture: PostgresFixture) throws -> Bool {
        let database = String(fixture.url.path.dropFirst())
        let answer = try PostgresCluster.shared().psql(
            "SELECT bool_and(s.ssl) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.datname = '\(database)' AND a.pid <> pg_backend_pid()",
            database: "postgres")
        return answer.trimmingCharacters(in: .whitespacesAndNewlines) == "t"
    }

    @Test func eachSSLModeConnectsAsItSaysAndSavesGoThrough() throws {
        let tls = try #require(try PostgresCluster.shared().tls, "openssl made no certificates for the test cluster")
        let cases: [(parameters: [String: String], host: String, encrypted: Bool)] = [
            ([:], "127.0.0.1", true),  // prefer, as libpq: the cluster offers TLS
            (["sslmode": "disable"], "127.0.0.1", false),
            (["sslmode": "require"], "127.0.0.1", true),
            (["sslmode": "verify-ca", "sslrootcert": tls.authority.path], "127.0.0.1", true),
            (["sslmode": "verify-full", "sslrootcert": tls.authority.path], "localhost", true),
        ]
        for (parameters, host, expected) in cases {
            let fixture = try PostgresFixture(url: try url(parameters, host: host))
            let tag = try fixture.context.insert("Tag", values: ["name": .string("tls \(parameters)")])
            try fixture.context.save()
            #expect(try encrypted(fixture) == expected, "\(parameters)")
            #expect(try fixture.secondCoordinator().context.existingObject(with: tag.objectID).get("name", as: String.self) == "tls \(parameters)")
        }
    }

    @Test func aCertificateFromAnAuthorityNotTrustedIsRefusedByTheVerifyingModes() throws {
        let tls = try #require(try PostgresCluster.shared().tls, "openssl made no certificates for the test cluster")
        for (mode, host) in [("verify-ca", "127.0.0.1"), ("verify-full", "localhost")] {
            let error = #expect(throws: PostgresStoreError.self) {
                try PostgresFixture(url: try url(["sslmode": mode, "sslrootcert": tls.otherAuthority.path], host: host))
            }
            guard case .connectionFailed(let address, _)? = error else {
                Issue.record("expected a connection failure for \(mode), got \(String(describing: error))")
                continue
            }
            #expect(address.hasSuffix("?sslmode=\(mode)"))
        }
        // A file that is not there is named.
        let missing = #expect(throws: PostgresStoreError.self) {
            try PostgresFixture(url: try url(["sslmode": "verify-ca", "sslrootcert": "/nonexistent/ca.crt"]))
        }
        #expect(missing.map { "\($0)" }?.contains("/nonexistent/ca.crt") == true)
    }

    @Test func theURLsTLSParametersAreCheckedAndEachMistakeNamed() throws {
        func reason(_ text: String) -> String? {
            do {
                _ = try DatabaseURL(try #require(URL(string: text)))
                return nil
            } catch let error as PostgresStoreError {
                if case .invalidURL(_, let reason) = error { return reason }
                return "\(error)"
            } catch {
                return "\(error)"
            }
        }
        #expect(reason("postgresql://u@h/db?sslmode=always")
                == "sslmode=always is not one of disable, prefer, require, verify-ca, verify-full")
        #expect(reason("postgresql://u@h/db?ssl=true") == "the parameter ssl is not one this store reads (sslmode, sslrootcert)")
        #expect(reason("postgresql://u@h/db?sslrootcert=") == "sslrootcert names no file")
        #expect(reason("postgresql://u@10.0.0.1/db?sslmode=verify-full")?.contains("10.0.0.1 is an address") == true)
        #expect(reason("postgresql://u@db.example/db?sslmode=verify-full&sslrootcert=/ca.pem") == nil)
        #expect(try DatabaseURL(#require(URL(string: "postgresql://u@h/db"))).sslMode == .prefer)
    }
}
