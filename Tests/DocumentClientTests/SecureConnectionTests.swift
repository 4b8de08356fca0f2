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

    /// A certificate of the same authority for `other.example` only (no IP address in it), made with openssl.
    private static func otherNameCertificate(_ certificates: ClusterCertificates, in directory: TemporaryDirectory) throws -> (cert: String, key: String) {
        let folder = certificates.authority.deletingLastPathComponent()
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        try "subjectAltName=DNS:other.example\n".write(toFile: path("other-name.ext"), atomically: true, encoding: .utf8)
        for arguments in [
            ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", path("other-name.key"),
             "-out", path("other-name.csr"), "-subj", "/CN=other.example"],
            ["x509", "-req", "-in", path("other-name.csr"), "-CA", certificates.authority.path, "-CAkey", path("ca.key"),
             "-CAcreateserial", "-out", path("other-name.crt"), "-days", "2", "-extfile", path("other-name.ext")],
        ] {
            let openssl = Process()
            openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            openssl.arguments = arguments
            openssl.standardOutput = FileHandle.nullDevice
            openssl.standardError = FileHandle.nullDevice
            try openssl.run()
            openssl.waitUntilExit()
            #expect(openssl.terminationStatus == 0)
        }
        return (path("other-name.crt"), path("other-name.key"))
    }

    @Test func aClientRefusesACertificateOfAnotherAuthorityOrForAnotherName() async throws {
        let directory = try TemporaryDirectory()
        let (server, certificates) = try Self.start(in: directory)
        for tls in [ClientTLS(caCertificatePath: certificates.otherAuthority.path, serverHostname: "localhost"), ClientTLS()] {
            var configuration = ClientConfiguration(host: "127.0.0.1", port: Int(server.port), connectTimeout: 5, requestTimeout: 5)
            configuration.tls = tls
            configuration.user = "ann"
            configuration.secret = "ann's secret"
            let client = DocumentClient(configuration: configuration)
            await #expect(throws: DocumentClientError.self, "\(tls)") { _ = try await client.hello() }
            try? await client.shutdown()
        }
        // A server whose certificate (of the trusted authority) names another host: refused.
        let other = try Self.otherNameCertificate(certificates, in: directory)
        let renamed = try ServerProcess(store: directory.file("renamed.json"), arguments: ["--tls-cert", other.cert, "--tls-key", other.key])
        var configuration = ClientConfiguration(host: "127.0.0.1", port: Int(renamed.port), connectTimeout: 5, requestTimeout: 5)
        configuration.tls = ClientTLS(caCertificatePath: certificates.authority.path, serverHostname: "localhost")
        let refused = DocumentClient(configuration: configuration)
        await #expect(throws: DocumentClientError.self) { _ = try await refused.hello() }
        try? await refused.shutdown()
        configuration.tls = ClientTLS(caCertificatePath: certificates.authority.path, serverHostname: "other.example")
        let accepted = DocumentClient(configuration: configuration)
        #expect(try await accepted.hello().server == "docserver")
        try? await accepted.shutdown()
        // Without TLS the server does not answer the line protocol.
        var plain = ClientConfiguration(host: "127.0.0.1", port: Int(server.port), connectTimeout: 5, requestTimeout: 5)
        plain.user = "ann"
        plain.secret = "ann's secret"
        let client = DocumentClient(configuration: plain)
        await #expect(throws: DocumentClientError.self) { _ = try await client.hello() }
        try? await client.shutdown()
    }
}
