import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A secret hashed against a user's stored hash (PBKDF2, tenths of a second): the user when it
/// matches, remembered so that the next `hello` with it is decided at once.
struct SecretCheck: Sendable {
    /// The user named; nil for a name the file does not hold (hashed all the same).
    let entry: UserEntry?
    let secret: String
    /// The digest remembered on a match.
    let key: [UInt8]
    let verified: NIOLockedValueBox<Set<[UInt8]>>

    func run() -> Principal? {
        guard let entry else {
            _ = SecretHash.derive(Array(secret.utf8), salt: Array(repeating: 0, count: 16), iterations: SecretHash.minimumIterations)
            return nil
        }
        guard entry.secret.matches(secret) else { return nil }
        verified.withLockedValue { set in
            if set.count > 4096 { set.removeAll() }
            set.insert(key)
        }
        return entry.principal
    }
}

extension SecretCheck {
    /// ``run()`` on NIO's shared thread pool, so that the event loop `loop` goes on serving its
    /// other connections meanwhile; the future completes on `loop`.
    func principal(on loop: any EventLoop) -> EventLoopFuture<Principal?> {
        NIOThreadPool.singleton.runIfActive(eventLoop: loop) { run() }
            .flatMapErrorThrowing { _ in run() }  // The shared pool never stops; were it stopped, hash here.
    }

    /// ``run()`` on NIO's shared thread pool, from a task (a batch's `hello`).
    func principal() async -> Principal? {
        do {
            return try await NIOThreadPool.singleton.runIfActive { run() }
        } catch {
            return run()
        }
    }
}
