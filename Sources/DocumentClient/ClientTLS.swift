#if TLS
import NIOSSL
#endif

/// TLS for a client's connections (docs/SECURITY.md): the server's certificate is verified,
/// with its host name, against the system's certificate authorities or ``caCertificatePath``.
///
/// Needs the package's TLS trait (swift-nio-ssl, Package.swift): without it, a configuration
/// with TLS fails to connect with ``DocumentClientError/cannotConnect(address:reason:)``
/// saying so, and nothing is sent in clear text instead.
public struct ClientTLS: Sendable, Equatable {
    /// The certificate authorities to trust (PEM); nil: the system's.
    public var caCertificatePath: String?
    /// The name the server's certificate must carry; nil: the configuration's host.
    public var serverHostname: String?
    /// A client certificate and its key (PEM), for a server with `--tls-client-ca`.
    public var clientCertificatePath: String?
    public var clientKeyPath: String?

    /// TLS verifying the server against `caCertificatePath` (nil: the system's authorities).
    public init(caCertificatePath: String? = nil, serverHostname: String? = nil,
                clientCertificatePath: String? = nil, clientKeyPath: String? = nil) {
        self.caCertificatePath = caCertificatePath
        self.serverHostname = serverHostname
        self.clientCertificatePath = clientCertificatePath
        self.clientKeyPath = clientKeyPath
    }

    #if TLS
    /// The context: TLS 1.2 or 1.3, full verification.
    func makeContext() throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.certificateVerification = .fullVerification
        if let caCertificatePath {
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caCertificatePath))
        }
        if let clientCertificatePath, let clientKeyPath {
            configuration.certificateChain = try NIOSSLCertificate.fromPEMFile(clientCertificatePath).map { .certificate($0) }
            configuration.privateKey = .privateKey(try NIOSSLPrivateKey(file: clientKeyPath, format: .pem))
        }
        return try NIOSSLContext(configuration: configuration)
    }
    #else
    /// Without the TLS trait, what a connection asking for TLS fails with.
    static let missingTrait = "this build of DocumentClient has no TLS: build it with the package's TLS trait "
        + "(swift build --traits TLS in the package; traits: [\"TLS\"] on a dependency on it)"
    #endif
}
