import DocumentProtocol
import GraphCore
import JSONCore

/// `hello` and what the connection's user may do (`docs/SECURITY.md`).
extension ConnectionSession {
    /// `hello`: with a users file, `user` and `secret` name a user; with `--auth-token`,
    /// `token` is the token user (every grant). Wrong credentials (or a value that is not a
    /// string) close the connection; an address with failures waits longer each time
    /// (``HelloThrottle``). The secret is never logged, echoed or kept in the slow log.
    func hello(_ params: JSONValue) -> Dispatch {
        let access = shared.access
        var credentials: [String: String] = [:]
        var present: Set<String> = []  // given and not null, strings or not
        var wrongType = false
        do {
            let hello = try Params(params, allowed: ["token", "client", "user", "secret"])
            for key in ["token", "user", "secret"] {
                switch hello[key] {
                case nil, .null?: continue
                case .string(let text)?: credentials[key] = text; present.insert(key)
                case .some: wrongType = true; present.insert(key)  // Not a string: wrong credentials, not a malformed call.
                }
            }
            if let client = try hello.optionalString("client") {
                logger.info("hello", metadata: ["client": "\(LogText.escaped(client))"])
                author = client
            }
        } catch {
            return .reply(.error(error), close: false)
        }
        guard access.required else { return .reply(.result(shared.helloResult()), close: false) }
        if let wait = access.throttle.waitBefore(address: address) {
            let milliseconds = max(1, wait.nanoseconds / 1_000_000)
            return .reply(.error(.unauthorized("too many failed hellos from this address: wait \(milliseconds) ms before the next")), close: true)
        }
        let user = credentials["user"]
        let check: CredentialCheck = wrongType ? .decided(nil) : access.check(user: user, secret: credentials["secret"], token: credentials["token"])
        switch check {
        case .decided(let principal):
            let (reply, close) = finishHello(principal, user: user, present: present)
            return .reply(reply, close: close)
        case .slow(let secretCheck):
            // The slow hash runs on a thread pool; the answer is made back on this connection's thread.
            return .hello(secretCheck) { principal in self.finishHello(principal, user: user, present: present) }
        }
    }

    /// The end of `hello` once its credentials are decided: `principal` nil for wrong ones
    /// (counted by the throttle; the connection closes after the answer).
    func finishHello(_ principal: Principal?, user: String?, present: Set<String>) -> (Reply, close: Bool) {
        let access = shared.access
        guard let principal else {
            closingAnswerDelay = access.throttle.failed(address: address, user: user)
            let reason: String
            if access.usersPath != nil && !present.contains("user") && !present.contains("token") {
                reason = "this server needs a user in hello (user and secret)"
            } else if access.usersPath == nil && !present.contains("token") {
                reason = "this server needs a token in hello"
            } else {
                reason = present.contains("user") ? "wrong user or secret" : "wrong token"
            }
            return (.error(.unauthorized(reason)), close: true)
        }
        access.throttle.succeeded(address: address)
        authenticated = true
        if principal.name == AccessControl.tokenUser && user == nil {
            self.principal = nil
        } else {
            self.principal = principal
            principalGeneration = access.generation
            readAccessCache = nil
            // The saves' author is the user (a client name cannot stand for another user).
            author = principal.name
        }
        return (.result(shared.helloResult()), close: false)
    }

    /// After a reload of the users file: the user's new grants, or an error when it is gone
    /// (the connection is then closed).
    func refreshPrincipal() -> RPCError? {
        guard let current = principal else { return nil }
        let generation = shared.access.generation
        guard generation != principalGeneration else { return nil }
        guard let fresh = shared.access.principal(named: current.name) else {
            authenticated = false
            principal = nil
            return .unauthorized("the user \(current.name) is no longer in the users file")
        }
        principal = fresh
        principalGeneration = generation
        readAccessCache = nil
        return nil
    }

    /// What the user may read; nil: everything.
    func readAccess() -> ReadAccess? {
        guard let principal else { return nil }
        if let readAccessCache { return readAccessCache }
        let made = principal.readAccess(shared.model)
        readAccessCache = made
        return made
    }

    /// A fetch limited to what the user may read: its row rule AND-ed into the predicate (so
    /// the limit counts readable objects only). An entity the user may not read, or one whose
    /// sub-entities the user may read under other rules than the entity (fetch them one by
    /// one), is refused.
    func restrict(_ call: inout FetchCall) throws(RPCError) {
        guard let principal, let entity = shared.model.entity(named: call.request.entityName) else { return }
        let access = principal.access(.read, entity)
        if access == .none {
            throw .forbidden(operation: "read", entity: entity.name, id: nil, reason: "no read grant on \(entity.name)")
        }
        if call.request.includesSubentities {
            for name in Self.subentityNames(of: entity) {
                guard let sub = shared.model.entity(named: name), principal.access(.read, sub) == access else {
                    throw .forbidden(operation: "read", entity: name, id: nil,
                                     reason: "your read grants on \(name) differ from those on \(entity.name): fetch \(name) on its own, or with includeSubentities false")
                }
            }
        }
        if call.explain, access != .all {
            // The plan counts the objects examined, the unreadable ones included.
            throw .forbidden(operation: "read", entity: entity.name, id: nil,
                             reason: "explain needs a read grant without a rule on \(entity.name): its plan counts objects you may not read")
        }
        if let predicate = access.predicate { call.restrict(to: predicate) }
    }

    /// A subscription's or `changes`' filter limited to what the user may read.
    func restrict(_ filter: FeedFilter) throws(RPCError) -> FeedFilter {
        guard let readAccess = readAccess() else { return filter }
        if let entity = filter.entity, !readAccess.mayRead(entity),
           !Self.subentityNames(of: entity).contains(where: { shared.model.entity(named: $0).map(readAccess.mayRead) ?? false }) {
            throw .forbidden(operation: "read", entity: entity.name, id: nil, reason: "no read grant on \(entity.name)")
        }
        var restricted = filter
        restricted.readAccess = readAccess
        return restricted
    }

    /// Admin methods (`backup`, `stats`, `slowlog`): the `admin` role only.
    func requireAdmin(_ method: String) throws(RPCError) {
        guard let principal, !principal.isAdmin else { return }
        throw .forbidden(operation: method, entity: nil, id: nil, reason: "\(method) needs the admin role")
    }

    /// Every sub-entity below `entity`, at any depth.
    static func subentityNames(of entity: EntityDescription) -> [String] {
        var names: [String] = []
        var pending = entity.subentityNames
        while let name = pending.popLast() {
            names.append(name)
            if let sub = entity.model?.entity(named: name) { pending += sub.subentityNames }
        }
        return names
    }
}
