import ArgumentParser
import DocumentServer
import Logging
import ServiceLifecycle
import UnixSignals

/// `serve`'s options for TLS and users (docs/SECURITY.md).
struct UserAccessOptions: ParsableArguments {
    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("Serve the line protocol over TLS (1.2 and 1.3 only) with this certificate chain, a PEM file (needs --tls-key); reloaded on SIGHUP. [env: DOCSERVER_TLS_CERT]", valueName: "file"))
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The private key of --tls-cert, a PEM file; reloaded on SIGHUP. [env: DOCSERVER_TLS_KEY]", valueName: "file"))
    var tlsKey: String?

    @Option(name: .customLong("tls-client-ca"), help: ArgumentHelp("Require a client certificate signed by one of these certificate authorities (a PEM file). [env: DOCSERVER_TLS_CLIENT_CA]", valueName: "file"))
    var tlsClientCA: String?

    @Option(help: ArgumentHelp("The users file (docs/SECURITY.md; written by 'docserver user add'): every connection must hello with a user and its secret, and gets that user's grants. Refused when others may read it; reloaded on SIGHUP. [env: DOCSERVER_USERS]", valueName: "file"))
    var users: String?

    @Flag(help: "Allow listening on an address other than loopback without TLS and without users or a token (logged as a warning): anyone who reaches the address can read and change everything.")
    var insecure = false

    func validate() throws {
        let cert = tlsCert ?? Environment.string("DOCSERVER_TLS_CERT"), key = tlsKey ?? Environment.string("DOCSERVER_TLS_KEY")
        if (cert == nil) != (key == nil) { throw ValidationError("--tls-cert and --tls-key go together: give both, or neither") }
        if cert == nil, tlsClientCA ?? Environment.string("DOCSERVER_TLS_CLIENT_CA") != nil {
            throw ValidationError("--tls-client-ca needs --tls-cert and --tls-key")
        }
        // Refused here, before anything starts, when the build lacks what the option needs.
        if cert != nil, !PackageTrait.tls.isEnabled { throw ValidationError(PackageTrait.tls.missing("--tls-cert (or DOCSERVER_TLS_CERT)")) }
        if users ?? Environment.string("DOCSERVER_USERS") != nil, !PackageTrait.users.isEnabled {
            throw ValidationError(PackageTrait.users.missing("--users (or DOCSERVER_USERS)"))
        }
    }

    /// Sets the TLS files, the users file and `insecure`.
    func apply(to configuration: inout ServerConfiguration) {
        if let cert = tlsCert ?? Environment.string("DOCSERVER_TLS_CERT"), let key = tlsKey ?? Environment.string("DOCSERVER_TLS_KEY") {
            configuration.tls = TLSFiles(certificatePath: cert, keyPath: key,
                                         clientCAPath: tlsClientCA ?? Environment.string("DOCSERVER_TLS_CLIENT_CA"))
        }
        configuration.usersFile = users ?? Environment.string("DOCSERVER_USERS")
        configuration.insecure = insecure
    }
}

/// Reloads the TLS certificate and key and the users file on SIGHUP.
struct ReloadSignalService: Service {
    let server: DocumentServer
    let logger: Logger

    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            logger.info("received SIGHUP: reloading the TLS certificate and key and the users file")
            server.reload()
        }
    }
}
