import Crypto
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
    func authenticate(user: String?, secret: String?, token offered: String?) -> Principal? {
        if let offered, let token, user == nil {
            guard ConnectionSession.constantTimeEqual(offered, token) else { return nil }
            return Principal(name: Self.tokenUser, roles: [.admin], grants: [])
        }
        guard let user, let secret, let entry = users.withLockedValue({ $0.user(named: user) }) else {
            // An unknown user costs what a known one does, so timing does not tell names apart.
            if let secret { _ = SecretHash.derive(Array(secret.utf8), salt: Array(repeating: 0, count: 16), iterations: SecretHash.minimumIterations) }
            return nil
        }
        var digest = SHA256()
        digest.update(data: Array(entry.secret.description.utf8) + [0] + Array(secret.utf8))
        let key = Array(digest.finalize())
        if verified.withLockedValue({ $0.contains(key) }) { return entry.principal }
        guard entry.secret.matches(secret) else { return nil }
        verified.withLockedValue { set in
            if set.count > 4096 { set.removeAll() }
            set.insert(key)
        }
        return entry.principal
    }
}
