import GraphCore

/// What a grant allows on the objects of an entity.
public enum AccessOperation: String, Sendable, Hashable, CaseIterable {
    case read, insert, update, delete
}

/// A named set of grants (`docs/SECURITY.md`, Users file): `reader` reads every entity,
/// `writer` also inserts, updates and deletes, `admin` also calls `backup`, `stats` and
/// `slowlog`.
public enum Role: String, Sendable, Hashable, CaseIterable {
    case reader, writer, admin

    /// The operations the role allows on every entity.
    var operations: Set<AccessOperation> {
        switch self {
        case .reader: return [.read]
        case .writer, .admin: return Set(AccessOperation.allCases)
        }
    }
}

/// One entry of a user's `grants`: operations on an entity (and its sub-entities), limited
/// to the objects its row rule holds for when it has one.
public struct Grant: Sendable, Hashable {
    public let entity: String
    public let operations: Set<AccessOperation>
    /// The row rule parsed (its `$user` not yet replaced); nil: every object.
    public let rule: GraphCore.Predicate?
    /// The row rule as the users file writes it.
    public let ruleText: String?

    /// A grant; `ruleText` is parsed (``UsersFile`` checks it against the model).
    public init(entity: String, operations: Set<AccessOperation>, ruleText: String?) throws(PredicateError) {
        self.entity = entity
        self.operations = operations
        self.ruleText = ruleText
        rule = try ruleText.map { text throws(PredicateError) in try GraphCore.Predicate(format: text, arguments: []) }
    }
}

/// What one operation may touch of one entity.
enum Access: Sendable, Hashable {
    /// Nothing.
    case none
    /// Every object.
    case all
    /// The objects this predicate (the row rules, `$user` replaced, joined with OR) holds for.
    case rule(GraphCore.Predicate)

    /// The predicate to AND into a fetch; nil for ``all``, `FALSEPREDICATE` for ``none``.
    var predicate: GraphCore.Predicate? {
        switch self {
        case .none: return .false
        case .all: return nil
        case .rule(let predicate): return predicate
        }
    }
}

/// A user who said `hello`: the name, and the grants of the roles and of the entries.
///
/// A grant on an entity covers its sub-entities; an object's access is the OR of every
/// grant on its entity and on the entity's ancestors.
public struct Principal: Sendable {
    public let name: String
    public let roles: Set<Role>
    public let grants: [Grant]

    public init(name: String, roles: Set<Role>, grants: [Grant]) {
        self.name = name
        self.roles = roles
        self.grants = grants
    }

    /// Whether the user may call `backup`, `stats` and `slowlog`.
    var isAdmin: Bool { roles.contains(.admin) }

    /// What `operation` may touch of `entity`'s own objects.
    func access(_ operation: AccessOperation, _ entity: EntityDescription) -> Access {
        if roles.contains(where: { $0.operations.contains(operation) }) { return .all }
        var rules: [GraphCore.Predicate] = []
        var current: EntityDescription? = entity
        while let level = current {
            for grant in grants where grant.entity == level.name && grant.operations.contains(operation) {
                guard let rule = grant.rule else { return .all }
                rules.append(rule.withSubstitutionVariables(["user": .value(.string(name))]))
            }
            current = level.parent
        }
        if rules.isEmpty { return .none }
        return .rule(rules.count == 1 ? rules[0] : .or(rules))
    }

    /// What `read` may see of every concrete entity of `model` (for the feed).
    func readAccess(_ model: ObjectModel) -> ReadAccess {
        var byEntity: [String: GraphCore.Predicate] = [:]
        for entity in model.entities {
            switch access(.read, entity) {
            case .none: continue
            case .all: byEntity[entity.name] = .true
            case .rule(let predicate): byEntity[entity.name] = predicate
            }
        }
        return ReadAccess(byEntity: byEntity)
    }
}

/// What a user may read, by entity name: `TRUEPREDICATE` for every object, a row rule, or
/// absent for nothing. Hashable: subscriptions with equal access share their records.
struct ReadAccess: Sendable, Hashable {
    let byEntity: [String: GraphCore.Predicate]

    /// Whether the entity is readable at all.
    func mayRead(_ entity: EntityDescription) -> Bool { byEntity[entity.name] != nil }

    /// What may be read of the entity's own objects.
    func access(_ entity: EntityDescription) -> Access {
        switch byEntity[entity.name] {
        case nil: return .none
        case .constant(true)?: return .all
        case let predicate?: return .rule(predicate)
        }
    }

    /// A test of the objects of `state` the user may read, made for one request.
    func filter(in state: ReadState) -> (ObjectSnapshot) -> Bool {
        let rules = RowRules(state: state)
        return { rules.permits(access($0.objectID.entity), $0) }
    }
}
