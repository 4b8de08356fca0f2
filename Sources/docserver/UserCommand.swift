import ArgumentParser
import DocumentServer
import Foundation

/// `docserver user`: manage the users file (docs/SECURITY.md).
struct UserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Manage a users file (docs/SECURITY.md).",
        subcommands: [UserAddCommand.self]
    )
}

/// `docserver user add`: adds (or replaces) a user; the secret comes from standard input,
/// never from the command line (where `ps` shows it).
struct UserAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a user to a users file, or replace the one of that name.",
        discussion: """
            The secret is read from standard input (its first line), never from the command line. The file is \
            created (mode 0600) when missing and rewritten whole (a new file, renamed over the old one, mode 0600). \
            A running server reads it again on SIGHUP.

            Example: printf '%s\\n' "$SECRET" | docserver user add --users users.json --name ann --role reader \\
              --grant 'Song:read,update:owner == $user'
            """
    )

    @Option(help: ArgumentHelp("The users file.", valueName: "file"))
    var users: String

    @Option(help: ArgumentHelp("The user's name (1 to 64 characters).", valueName: "name"))
    var name: String

    @Option(help: ArgumentHelp("A role: reader, writer or admin (repeat for several).", valueName: "role"))
    var role: [String] = []

    @Option(help: ArgumentHelp("A grant: ENTITY:OPERATIONS[:RULE], operations among read, insert, update, delete joined by commas, the rule a predicate that may use $user (repeat for several).", valueName: "grant"))
    var grant: [String] = []

    @Option(help: ArgumentHelp("PBKDF2 iterations for the secret's hash. [default: \(SecretHash.defaultIterations)]", valueName: "count"))
    var iterations: Int = SecretHash.defaultIterations

    func validate() throws {
        guard PackageTrait.users.isEnabled else { throw ValidationError(PackageTrait.users.missing("docserver user add")) }
        guard UsersFile.isValidName(name) else { throw ValidationError("--name must be 1 to \(UsersFile.maximumNameLength) characters, without control characters") }
        guard (SecretHash.minimumIterations...SecretHash.maximumIterations).contains(iterations) else {
            throw ValidationError("--iterations must be from \(SecretHash.minimumIterations) to \(SecretHash.maximumIterations)")
        }
    }

    func run() throws {
        #if Users
        try add()
        #else
        throw ValidationError(PackageTrait.users.missing("docserver user add"))
        #endif
    }

    #if Users
    /// Reads the secret, hashes it and writes the file with the user added.
    private func add() throws {
        var roles: Set<Role> = []
        for text in role {
            guard let parsed = Role(rawValue: text) else { throw ValidationError("unknown role '\(text)' (reader, writer, admin)") }
            roles.insert(parsed)
        }
        var grants: [Grant] = []
        for text in grant {
            let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            guard parts.count >= 2, !parts[0].isEmpty else { throw ValidationError("--grant '\(text)': write ENTITY:OPERATIONS[:RULE]") }
            var operations: Set<AccessOperation> = []
            for operation in parts[1].split(separator: ",") {
                guard let parsed = AccessOperation(rawValue: operation.trimmingCharacters(in: .whitespaces)) else {
                    throw ValidationError("--grant '\(text)': unknown operation '\(operation)' (read, insert, update, delete)")
                }
                operations.insert(parsed)
            }
            guard !operations.isEmpty else { throw ValidationError("--grant '\(text)': name at least one operation") }
            do {
                grants.append(try Grant(entity: parts[0], operations: operations, ruleText: parts.count == 3 ? parts[2] : nil))
            } catch {
                throw ValidationError("--grant '\(text)': the rule does not parse: \(error.description)")
            }
        }
        var file = UsersFile()
        if FileManager.default.fileExists(atPath: users) {
            do {
                file = try UsersFile.load(path: users, model: nil)
            } catch {
                throw ValidationError(error.description)
            }
        }
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw ValidationError("give the secret on standard input (one line); it is never taken from the command line")
        }
        file.add(UserEntry(secret: SecretHash(hashing: line, iterations: iterations), principal: Principal(name: name, roles: roles, grants: grants)))
        // Checked as the server will read it (without the model: `serve` checks the entities).
        do {
            _ = try UsersFile.parse(Array(file.jsonText.utf8), model: nil)
        } catch {
            throw ValidationError("the users file would not read back: \(error.description)")
        }
        try write(file.jsonText)
        FileHandle.standardError.write(Data("\(users): user \(name) written (\(file.entries.count) users); send the server SIGHUP to use it\n".utf8))
    }
    #endif

    /// Writes a new file beside the old one, owner-only, and renames it over.
    private func write(_ text: String) throws {
        let temporary = users + ".tmp-\(ProcessInfo.processInfo.processIdentifier)"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw ValidationError("cannot write \(temporary)")
        }
        guard rename(temporary, users) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporary)
            throw ValidationError("cannot rename \(temporary) to \(users): \(reason)")
        }
    }
}
