#if Users
import Crypto
import CryptoExtras
#endif
import Foundation

/// A user's secret as the users file keeps it: PBKDF2 with HMAC-SHA256, a per-user random
/// salt and the iteration count stored with the hash, written
/// `pbkdf2-sha256$ITERATIONS$SALT$HASH` (salt and hash in base64). The secret itself is
/// never stored; a secret is checked by hashing it again and comparing in constant time.
///
/// The hashing needs the Users trait (swift-crypto, Package.swift). Without it a hash can be
/// read and written as text but not made or checked: no users file is loaded
/// (``DocumentServer`` refuses `usersFile`), and ``matches(_:)`` is always false.
public struct SecretHash: Sendable, Equatable, CustomStringConvertible {
    /// The scheme's name, first in the text form.
    public static let scheme = "pbkdf2-sha256"
    /// The iterations `docserver user add` uses.
    public static let defaultIterations = 210_000
    /// The fewest iterations accepted in a users file (tests use few; production files more).
    public static let minimumIterations = 1_000
    /// The most: a hash that would take the server seconds per `hello` is refused.
    public static let maximumIterations = 10_000_000

    public let iterations: Int
    public let salt: [UInt8]
    public let hash: [UInt8]

    #if Users
    /// Hashes `secret` with a new random 16-byte salt (Users trait only).
    public init(hashing secret: String, iterations: Int = SecretHash.defaultIterations) {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        self.init(iterations: iterations, salt: salt, hash: Self.derive(Array(secret.utf8), salt: salt, iterations: iterations))
    }
    #endif

    init(iterations: Int, salt: [UInt8], hash: [UInt8]) {
        self.iterations = iterations
        self.salt = salt
        self.hash = hash
    }

    /// Reads the text form; nil when it is not one (the caller says where).
    public init?(text: String) {
        let parts = text.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == Self.scheme, parts[1].count <= 9, let iterations = Int(parts[1]),
              (Self.minimumIterations...Self.maximumIterations).contains(iterations),
              let salt = Data(base64Encoded: String(parts[2])), salt.count >= 8, salt.count <= 64,
              let hash = Data(base64Encoded: String(parts[3])), hash.count == 32 else { return nil }
        self.init(iterations: iterations, salt: Array(salt), hash: Array(hash))
    }

    /// The text form (no secret in it).
    public var description: String {
        "\(Self.scheme)$\(iterations)$\(Data(salt).base64EncodedString())$\(Data(hash).base64EncodedString())"
    }

    /// Whether `secret` is the one hashed; takes the same time whatever the difference.
    public func matches(_ secret: String) -> Bool {
        Self.constantTimeEqual(Self.derive(Array(secret.utf8), salt: salt, iterations: iterations), hash)
    }

    /// PBKDF2-HMAC-SHA256 (RFC 8018), 32 bytes, by BoringSSL (swift-crypto's CryptoExtras):
    /// 210,000 iterations take a few tenths of a second where a loop in Swift took seconds.
    /// A failure gives no bytes, which match no stored hash (it fails closed).
    /// Without the Users trait: no bytes (no secret is checked in such a build; were one, it
    /// would match nothing).
    static func derive(_ secret: [UInt8], salt: [UInt8], iterations: Int) -> [UInt8] {
        #if Users
        guard let key = try? KDF.Insecure.PBKDF2.deriveKey(from: secret, salt: salt, using: .sha256, outputByteCount: 32,
                                                             unsafeUncheckedRounds: iterations) else { return [] }
        return key.withUnsafeBytes { Array($0) }
        #else
        return []
        #endif
    }

    /// SHA-256 of a stored hash's text and a secret: how a secret that matched is remembered
    /// without keeping the secret. Without the Users trait: no bytes (nothing is remembered:
    /// nothing matches).
    static func verifiedKey(stored: SecretHash, secret: String) -> [UInt8] {
        #if Users
        var digest = SHA256()
        digest.update(data: Array(stored.description.utf8) + [0] + Array(secret.utf8))
        return Array(digest.finalize())
        #else
        return []
        #endif
    }

    /// Compares without stopping at the first difference.
    static func constantTimeEqual(_ x: [UInt8], _ y: [UInt8]) -> Bool {
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }
}
