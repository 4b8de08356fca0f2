// libFuzzer target: the users file (docs/SECURITY.md) and `hello`'s credentials.
//
// The input is a users file, optionally followed by a line `---` and `hello` parameters, one
// JSON object a line. The file is parsed against the sample model; it must either parse or
// fail with an error. When it parses: its JSON text parses back to the same users and grants,
// every user's access to every entity can be asked, and each `hello` is checked against the
// file as the server checks it (a user's secret hash with more than 20,000 iterations is not
// tried, to keep an input fast). A hello that names a user with a secret that is not theirs
// must fail, and one with the token must succeed.
@testable import DocumentServer
import FuzzSupport
import Foundation
import GraphCore
import JSONCore
import Logging

private let model = FuzzModels.sample()
private let scratch = ScratchDirectory("users-fuzz")
private let logger = Logger(label: "users-fuzz", factory: { _ in SwiftLogNoOpLogHandler() })

@_cdecl("LLVMFuzzerTestOneInput")
public func usersFuzzTest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let separator = Array("\n---\n".utf8)
    var fileBytes = input, helloLines: [[UInt8]] = []
    if let range = input.firstRange(of: separator) {
        fileBytes = Array(input[..<range.lowerBound])
        helloLines = input[range.upperBound...].split(separator: UInt8(ascii: "\n")).map(Array.init)
    }
    let file: UsersFile
    do {
        file = try UsersFile.parse(fileBytes, model: model)
    } catch {
        return 0
    }
    let again: UsersFile
    do {
        again = try UsersFile.parse(Array(file.jsonText.utf8), model: model)
    } catch {
        fuzzFailure("a users file's own JSON text does not parse back: \(error)")
    }
    guard again.entries.map(\.name) == file.entries.map(\.name),
          zip(again.entries, file.entries).allSatisfy({ $0.secret == $1.secret && $0.principal.roles == $1.principal.roles
              && $0.principal.grants == $1.principal.grants }) else {
        fuzzFailure("a users file's own JSON text reads back as other users")
    }
    for entry in file.entries {
        for entity in model.entities {
            for operation in AccessOperation.allCases { _ = entry.principal.access(operation, entity) }
        }
        _ = entry.principal.readAccess(model)
    }
    guard !helloLines.isEmpty else { return 0 }
    defer { scratch.empty() }
    let url = scratch.write(fileBytes, to: "users.json")
    let access: AccessControl
    do {
        guard chmod(url.path, 0o600) == 0 else { fuzzFailure("cannot chmod the scratch users file") }
        access = try AccessControl(usersPath: url.path, token: "fuzz-token", model: model, logger: logger)
    } catch {
        fuzzFailure("a users file that parses is refused when loaded: \(error)")
    }
    for line in helloLines.prefix(8) {
        guard case .object(let members)? = try? line.withUnsafeBytes({ try JSONValue.parse($0, maximumDepth: 8) }) else { continue }
        func text(_ key: String) -> String? {
            if case .string(let value)? = members.last(where: { $0.key == key })?.value { return value }
            return nil
        }
        let user = text("user"), secret = text("secret"), token = text("token")
        if let user, let entry = file.user(named: user), entry.secret.iterations > 20_000 { continue }
        let principal = access.authenticate(user: user, secret: secret, token: token)
        if token == "fuzz-token", user == nil, principal == nil { fuzzFailure("the right token was refused") }
        if let user, let secret, let principal, principal.name != user || !(file.user(named: user)?.secret.matches(secret) ?? false) {
            fuzzFailure("a hello as \(user) was accepted with a secret that is not theirs")
        }
        access.throttle.failed(address: "192.0.2.1", user: user)
        _ = access.throttle.waitBefore(address: "192.0.2.1")
    }
    return 0
}

@main
enum UsersFuzzer {
    static func main() {
        runFuzzer(usersFuzzTest)
    }
}
