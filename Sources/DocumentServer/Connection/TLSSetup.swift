import Logging
import NIOConcurrencyHelpers
import NIOCore
#if TLS
import NIOSSL
#endif

/// Where the server's TLS certificate and key are (PEM files), and, when clients must show a
/// certificate, the certificate authorities that sign them.
public struct TLSFiles: Sendable, Equatable {
    /// The certificate chain, leaf first (PEM).
    public var certificatePath: String
    /// The private key of the leaf certificate (PEM).
    public var keyPath: String
    /// When set, every client must present a certificate signed by one of these (PEM).
    public var clientCAPath: String?

    /// The files; `clientCAPath` nil: clients need no certificate.
    public init(certificatePath: String, keyPath: String, clientCAPath: String? = nil) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        self.clientCAPath = clientCAPath
    }
}

#if TLS
/// The TLS context new connections use, made from ``TLSFiles``: TLS 1.2 and 1.3 only.
///
/// ``reload()`` reads the files again (on SIGHUP): connections accepted afterwards use the
/// new certificate and key, open ones keep theirs; when a file cannot be read or does not
/// hold a usable certificate or key, the old context stays in use.
final class TLSSetup: Sendable {
    let files: TLSFiles
    private let context: NIOLockedValueBox<NIOSSLContext>

    /// Reads the files; throws ``DocumentServerError/tls(_:)`` saying which file is wrong.
    init(files: TLSFiles) throws(DocumentServerError) {
        self.files = files
        context = NIOLockedValueBox(try Self.makeContext(files))
    }

    /// The context for a connection accepted now.
    var current: NIOSSLContext { context.withLockedValue { $0 } }

    /// Reads the files again; on failure the old context stays and the error is thrown.
    func reload() throws(DocumentServerError) {
        let fresh = try Self.makeContext(files)
        context.withLockedValue { $0 = fresh }
    }

    /// Adds a server handler to a new connection's pipeline.
    func addHandler(to pipeline: ChannelPipeline.SynchronousOperations) throws {
        try pipeline.addHandler(NIOSSLServerHandler(context: current))
    }

    static func makeContext(_ files: TLSFiles) throws(DocumentServerError) -> NIOSSLContext {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(files.certificatePath)
        } catch {
            throw .tls("cannot read the certificate \(files.certificatePath) (--tls-cert, a PEM file): \(error)")
        }
        guard !chain.isEmpty else { throw .tls("the certificate file \(files.certificatePath) (--tls-cert) holds no PEM certificate") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: files.keyPath, format: .pem)
        } catch {
            throw .tls("cannot read the private key \(files.keyPath) (--tls-key, a PEM file): \(error)")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) },
                                                                     privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.maximumTLSVersion = .tlsv13
        if let caPath = files.clientCAPath {
            let authorities: [NIOSSLCertificate]
            do {
                authorities = try NIOSSLCertificate.fromPEMFile(caPath)
            } catch {
                throw .tls("cannot read the client certificate authorities \(caPath) (--tls-client-ca, a PEM file): \(error)")
            }
            guard !authorities.isEmpty else { throw .tls("the file \(caPath) (--tls-client-ca) holds no PEM certificate") }
            configuration.trustRoots = .certificates(authorities)
            // A server that verifies asks for a certificate and refuses a client without one.
            configuration.certificateVerification = .noHostnameVerification
        }
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw .tls("cannot use the certificate \(files.certificatePath) with the key \(files.keyPath): \(error) (does the key belong to the certificate?)")
        }
    }
}
#else
/// Without the TLS trait (the default build, Package.swift) there is no TLS: no setup can be
/// made, so a configuration with ``TLSFiles`` is refused when the server is made, before the
/// store opens, with a message that says how to build with TLS.
enum TLSSetup: Sendable {
    /// Always throws ``DocumentServerError/tls(_:)``: this build has no TLS.
    init(files: TLSFiles) throws(DocumentServerError) {
        throw .tls(PackageTrait.tls.missing("TLS (--tls-cert \(files.certificatePath))"))
    }

    // None of these can be reached: there is no value of this type.
    var files: TLSFiles { switch self {} }

    func reload() throws(DocumentServerError) { switch self {} }

    func addHandler(to pipeline: ChannelPipeline.SynchronousOperations) throws { switch self {} }
}
#endif
