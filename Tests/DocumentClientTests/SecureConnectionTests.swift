import DocumentClient
import Foundation
import PostgresTestSupport
import ServerTestSupport
import Testing

/// `DocumentClient` over TLS with a user (docs/SECURITY.md), against the real binary: the
/// server's certificate is verified by default (its authority, its host name), and `hello`
/// carries the user and its secret.
@Suite struct SecureConnectionTests {
    /// A server with TLS and a users file (written by `docserver user add`): ann, a reader.
    private static func start(in directory: TemporaryDirectory) throws -> (ServerProcess, ClusterCertificates) {
        let certificates = try ClusterCertificates(in: directory.file("tls"), owner: nil)
        let users = directory.file("users.json")
        let add = Process()
        add.executableURL = try DocServerBinary.url()
        add.arguments = ["user", "add", "--users", users.path, "--name", "ann", "--role", "reader", "--iterations", "2000"]
        let input = Pipe()
        add.standardInput = input
        add.standardError = FileHandle.nullDevice
        try add.run()
        input.fileHandleForWriting.write(Data("ann's secret\n".utf8))
        try input.fileHandleForWriting.close()
        add.waitUntilExit()
        #expect(add.terminationStatus == 0)
        let server = try ServerProcess(in: directory, arguments: [
            "--tls-cert", certificates.serverCertificate.path, "--tls-key", certificates.serverKey.path, "--users", users.path,
        ])
        return (server, certificates)
    }

    @Test func aClientWithTLSAndAUserIsAnsweredAndAReaderCannotSave() async throws {
        let directory = try TemporaryDirectory()
        let (server, certificates) = try Self.start(in: directory)
        var configuration = ClientConfiguration(host: "127.0.0.1", port: Int(server.port))
        configuration.tls = ClientTLS(caCertificatePath: certificates.authority.path, serverHostname: "localhost")
        configuration.user = "ann"
        configuration.secret = "ann's secret"
        #expect(!"\(configuration)".contains("secret"))
        let client = DocumentClient(configuration: configuration)
        defer { try? client.syncShutdown() }
        let hello = try await client.hello()
        #expect(hello.server == "docserver")
        let stats = await #expect(throws: DocumentClientError.self) { _ = try await client.call("stats") }
        #expect("\(String(describing: stats))".contains("-32011") || "\(String(describing: stats))".contains("forbidden"))
    }

    @Test func aClientRefusesACertificateOfAnotherAuthorityOrForAnotherName() async throws {
        let directory = try TemporaryDirectory()
        let (server, certificates) = try Self.start(in: directory)
        for tls in [ClientTLS(caCertificatePath: certificates.otherAuthority.path, serverHostname: "localhost"),
                    ClientTLS(caCertificatePath: certificates.authority.path, serverHostname: "db.example.org"),
                    ClientTLS()] {
            var configuration = ClientConfiguration(host: "127.0.0.1", port: Int(server.port), connectTimeout: 5, requestTimeout: 5)
            configuration.tls = tls
            configuration.user = "ann"
            configuration.secret = "ann's secret"
            let client = DocumentClient(configuration: configuration)
            await #expect(throws: DocumentClientError.self) { _ = try await client.hello() }
            try? await client.shutdown()
        }
        // Without TLS the server does not answer the line protocol.
        var plain = ClientConfiguration(host: "127.0.0.1", port: Int(server.port), connectTimeout: 5, requestTimeout: 5)
        plain.user = "ann"
        plain.secret = "ann's secret"
        let client = DocumentClient(configuration: plain)
        await #expect(throws: DocumentClientError.self) { _ = try await client.hello() }
        try? await client.shutdown()
    }
}
