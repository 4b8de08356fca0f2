import Foundation
import GraphCore
import Logging
import NIOConcurrencyHelpers

/// Who may connect and what each user may do: the users file (reloaded on SIGHUP) and the
/// `--auth-token`, which stands for one user with every grant.
final class AccessControl: Sendable {
    /// The users file's path; nil without `--users`.
    let usersPath: String?
    let token: String?
    let model: ObjectModel
    let throttle: HelloThrottle
    private let users: NIOLockedValueBox<UsersFile>
    /// Counts reloads, so that a connection knows when to look its user up again.
    private let generationBox = NIOLockedValueBox(0)
    var generation: Int { generationBox.withLockedValue { $0 } }
    /// Secrets checked before, as SHA-256 of the stored hash and the secret: a client that
    /// reconnects with the right secret is not made to wait for the slow hash again. Cleared
    /// on reload.
    private let verified = NIOLockedValueBox(Set<[UInt8]>())
    private let logger: Logger

    /// The name the `--auth-token` user gets (its saves' author unless `hello` names a client).
    static let tokenUser = "token"

    init(usersPath: String?, token: String?, model: ObjectModel, logger: Logger) throws(UsersFileError) {
        self.usersPath = usersPath
        self.token = token
        self.model = model
        self.logger = logger
        throttle = HelloThrottle(logger: logger)
        var file = UsersFile()
        if let usersPath { file = try UsersFile.load(path: usersPath, model: model) }
        users = NIOLockedValueBox(file)
    }

    /// Whether connections must say `hello` with credentials first.
    var required: Bool { usersPath != nil || token != nil }

    /// The number of users in the file now.
    var userCount: Int { users.withLockedValue { $0.entries.count } }

    /// Reads the users file again; on failure the old users stay and the error is thrown.
    func reload() throws(UsersFileError) {
        guard let usersPath else { return }
        let fresh = try UsersFile.load(path: usersPath, model: model)
        users.withLockedValue { $0 = fresh }
        verified.withLockedValue { $0.removeAll() }
        generationBox.withLockedValue { $0 += 1 }
    }

    /// The user of that name in the file now (after a reload: with its new grants), or nil.
    func principal(named name: String) -> Principal? {
        users.withLockedValue { $0.user(named: name)?.principal }
    }

    /// The user these credentials name, or nil. `token`: the `--auth-token` user (every grant).
    /// Runs the slow hash where it is needed, on the calling thread: for the server's
    /// connections, ``check(user:secret:token:)`` keeps it off the event loop.
    func authenticate(user: String?, secret: String?, token offered: String?) -> Principal? {
        switch check(user: user, secret: secret, token: offered) {
        case .decided(let principal): principal
        case .slow(let check): check.run()
        }
    }

    /// What these credentials need: decided at once (a token, a secret checked before, no
    /// secret), or a slow hash (``SecretCheck``) to run on a thread pool, never on an event loop
    /// (about 0.2 s at the default iterations would hold every connection of that loop).
    func check(user: String?, secret: String?, token offered: String?) -> CredentialCheck {
        if let offered, let token, user == nil {
            guard ConnectionSession.constantTimeEqual(offered, token) else { return .decided(nil) }
            return .decided(Principal(name: Self.tokenUser, roles: [.admin], grants: []))
        }
        guard let secret else { return .decided(nil) }
        guard let user, let entry = users.withLockedValue({ $0.user(named: user) }) else {
            // An unknown user costs a hash too (on the pool), so timing does not tell names apart.
            return .slow(SecretCheck(entry: nil, secret: secret, key: [], verified: verified))
        }
        let key = SecretHash.verifiedKey(stored: entry.secret, secret: secret)
        if verified.withLockedValue({ $0.contains(key) }) { return .decided(entry.principal) }
        return .slow(SecretCheck(entry: entry, secret: secret, key: key, verified: verified))
    }
}

/// How `hello`'s credentials are decided (``AccessControl/check(user:secret:token:)``).
enum CredentialCheck: Sendable {
    /// At once: the user, or nil for wrong credentials.
    case decided(Principal?)
    /// After a slow hash: run ``SecretCheck/run()`` off the event loop.
    case slow(SecretCheck)
}
