import Foundation
import GraphCore
import JSONCore

/// One user of the users file.
public struct UserEntry: Sendable {
    public let secret: SecretHash
    public let principal: Principal
    public var name: String { principal.name }

    public init(secret: SecretHash, principal: Principal) {
        self.secret = secret
        self.principal = principal
    }
}

/// Why a users file cannot be used: what is wrong and where.
public struct UsersFileError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// The users file (`--users FILE`, `docs/SECURITY.md`): JSON,
///
/// ```json
/// {"users": [{"name": "ann", "secret": "pbkdf2-sha256$210000$…$…", "roles": ["reader"],
///             "grants": [{"entity": "Song", "operations": ["read", "update"], "rule": "owner == $user"}]}]}
/// ```
///
/// Read whole and checked before use (an unknown role, operation, entity or key, a rule that
/// does not parse or names keys its entity lacks, a name given twice): a file with any
/// mistake is refused whole, so a reload never half applies.
public struct UsersFile: Sendable {
    /// The users in file order.
    public private(set) var entries: [UserEntry]
    private var byName: [String: Int]

    /// The longest user name.
    public static let maximumNameLength = 64
    /// The largest users file read: 16 MiB.
    public static let maximumBytes = 16 << 20

    public init(entries: [UserEntry] = []) {
        self.entries = []
        byName = [:]
        for entry in entries { add(entry) }
    }

    /// The user of that name.
    public func user(named name: String) -> UserEntry? { byName[name].map { entries[$0] } }

    /// Adds a user, or replaces the one of the same name.
    public mutating func add(_ entry: UserEntry) {
        if let index = byName[entry.name] {
            entries[index] = entry
        } else {
            byName[entry.name] = entries.count
            entries.append(entry)
        }
    }

    /// Reads the file at `path`; refuses it when group or others may read or write it.
    public static func load(path: String, model: ObjectModel?) throws(UsersFileError) -> UsersFile {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw UsersFileError("cannot read the users file \(path): \((error as NSError).localizedDescription)")
        }
        if let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue, mode & 0o077 != 0 {
            throw UsersFileError("the users file \(path) may be read or written by others (mode \(String(mode & 0o777, radix: 8))): "
                                 + "it holds the users' secret hashes; make it the owner's only (chmod 600 \(path))")
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw UsersFileError("cannot read the users file \(path)") }
        guard data.count <= maximumBytes else { throw UsersFileError("the users file \(path) is larger than \(maximumBytes) bytes") }
        do {
            return try parse(Array(data), model: model)
        } catch {
            throw UsersFileError("the users file \(path): \(error.description)")
        }
    }

    /// Parses the file's bytes; with `model`, checks entities and rules against it.
    public static func parse(_ bytes: [UInt8], model: ObjectModel?) throws(UsersFileError) -> UsersFile {
        let root: JSONValue
        do {
            root = try bytes.withUnsafeBytes { try JSONValue.parse($0, maximumDepth: 16) }
        } catch {
            throw UsersFileError("not JSON: \(error)")
        }
        guard case .object(let members) = root else { throw UsersFileError("must be a JSON object {\"users\": [...]}") }
        var file = UsersFile()
        for (key, value) in members {
            guard key == "users" else { throw UsersFileError("unknown member \"\(Self.shown(key))\" (only \"users\")") }
            guard case .array(let users) = value else { throw UsersFileError("\"users\" must be an array") }
            for (index, user) in users.enumerated() {
                let entry = try parseUser(user, path: "users[\(index)]", model: model)
                guard file.user(named: entry.name) == nil else {
                    throw UsersFileError("users[\(index)]: the name \"\(Self.shown(entry.name))\" is given twice")
                }
                file.add(entry)
            }
        }
        return file
    }

    private static func parseUser(_ value: JSONValue, path: String, model: ObjectModel?) throws(UsersFileError) -> UserEntry {
        guard case .object(let members) = value else { throw UsersFileError("\(path) must be an object") }
        var name: String?, secret: SecretHash?, roles: Set<Role> = [], grants: [Grant] = []
        for (key, member) in members {
            switch (key, member) {
            case ("name", .string(let text)):
                guard isValidName(text) else {
                    throw UsersFileError("\(path).name must be 1 to \(maximumNameLength) characters, without control characters")
                }
                name = text
            case ("secret", .string(let text)):
                guard let hash = SecretHash(text: text) else {
                    throw UsersFileError("\(path).secret is not a \(SecretHash.scheme) hash with \(SecretHash.minimumIterations) to \(SecretHash.maximumIterations) iterations (write users with docserver user add)")
                }
                secret = hash
            case ("roles", .array(let elements)):
                for (index, element) in elements.enumerated() {
                    guard case .string(let text) = element, let role = Role(rawValue: text) else {
                        throw UsersFileError("\(path).roles[\(index)] must be one of \(Role.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    roles.insert(role)
                }
            case ("grants", .array(let elements)):
                for (index, element) in elements.enumerated() {
                    grants.append(try parseGrant(element, path: "\(path).grants[\(index)]", model: model))
                }
            default:
                throw UsersFileError("\(path).\(shown(key)): unknown member or wrong type (name and secret: strings; roles and grants: arrays)")
            }
        }
        guard let name else { throw UsersFileError("\(path).name is required") }
        guard let secret else { throw UsersFileError("\(path).secret is required") }
        return UserEntry(secret: secret, principal: Principal(name: name, roles: roles, grants: grants))
    }

    private static func parseGrant(_ value: JSONValue, path: String, model: ObjectModel?) throws(UsersFileError) -> Grant {
        guard case .object(let members) = value else { throw UsersFileError("\(path) must be an object") }
        var entity: String?, operations: Set<AccessOperation> = [], rule: String?
        for (key, member) in members {
            switch (key, member) {
            case ("entity", .string(let text)): entity = text
            case ("operations", .array(let elements)):
                for (index, element) in elements.enumerated() {
                    guard case .string(let text) = element, let operation = AccessOperation(rawValue: text) else {
                        throw UsersFileError("\(path).operations[\(index)] must be one of read, insert, update, delete")
                    }
                    operations.insert(operation)
                }
            case ("rule", .string(let text)): rule = text
            case ("rule", .null): rule = nil
            default:
                throw UsersFileError("\(path).\(shown(key)): unknown member or wrong type (entity, rule: strings; operations: an array)")
            }
        }
        guard let entity else { throw UsersFileError("\(path).entity is required") }
        guard !operations.isEmpty else { throw UsersFileError("\(path).operations must name at least one of read, insert, update, delete") }
        let grant: Grant
        do {
            grant = try Grant(entity: entity, operations: operations, ruleText: rule)
        } catch {
            throw UsersFileError("\(path).rule does not parse: \(error.description)")
        }
        if let model {
            guard model.entity(named: entity) != nil else {
                throw UsersFileError("\(path).entity: the model has no entity \"\(shown(entity))\" (entities: \(model.entities.map(\.name).joined(separator: ", ")))")
            }
            if let predicate = grant.rule {
                var request = FetchRequest(entityName: entity)
                request.predicate = predicate.withSubstitutionVariables(["user": .value(.string(""))])
                do {
                    _ = try SnapshotFetch(request, model: model, resolve: { _ in nil })
                } catch {
                    throw UsersFileError("\(path).rule: \(error) (a rule may use $user and the keys of \(entity))")
                }
            }
        }
        return grant
    }

    /// A name: 1 to 64 characters, none a control character.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= maximumNameLength && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// A text from the file as an error message shows it: at most 64 characters.
    private static func shown(_ text: String) -> String { String(text.prefix(64)) }

    /// The file's JSON text, one user a line.
    public var jsonText: String {
        let lines = entries.map { entry -> String in
            var members: [(key: String, value: JSONValue)] = [("name", .string(entry.name)), ("secret", .string(entry.secret.description))]
            members.append(("roles", .array(entry.principal.roles.map(\.rawValue).sorted().map { .string($0) })))
            members.append(("grants", .array(entry.principal.grants.map { grant in
                var fields: [(key: String, value: JSONValue)] = [("entity", .string(grant.entity))]
                fields.append(("operations", .array(AccessOperation.allCases.filter(grant.operations.contains).map { .string($0.rawValue) })))
                if let rule = grant.ruleText { fields.append(("rule", .string(rule))) }
                return .object(fields)
            })))
            return "  " + JSONValue.object(members).jsonText
        }
        return "{\"users\": [\n" + lines.joined(separator: ",\n") + "\n]}\n"
    }
}
