import NIOHTTP1

/// Which web pages may use `/rpc` (`--http-allow-origin`): a browser names the page that opens a
/// WebSocket or sends a `POST` in the `Origin` header, and only the listed ones (and the port's
/// own page) are let in, so that a page on another site cannot read or change the store through
/// a visitor's browser.
///
/// - No `Origin` header: not a browser (curl, the clients), allowed.
/// - An origin listed (exactly, as `scheme://host[:port]`; `*` lists every one), allowed.
/// - The port's own page: an origin equal to `http://` + the `Host` header, when that host is an
///   IP address or `localhost`. A host *name* is not enough, because a name can be pointed at this
///   machine by its owner (DNS rebinding) and the browser would then call its page same-origin.
/// - Anything else is refused (403).
struct OriginPolicy: Sendable {
    private let allowed: Set<String>

    init(allowed: [String]) {
        self.allowed = Set(allowed.map(Self.normalized))
    }

    /// Whether the request may use `/rpc`.
    func allows(_ head: HTTPRequestHead) -> Bool {
        guard let origin = head.headers.first(name: "origin") else { return true }
        let normalized = Self.normalized(origin)
        if allowed.contains("*") || allowed.contains(normalized) { return true }
        guard let host = head.headers.first(name: "host").map({ $0.lowercased() }),
              normalized == "http://" + host || normalized == "https://" + host else { return false }
        return Self.isAddressOrLocalhost(host)
    }

    /// The reason given with a 403.
    func refusal(_ head: HTTPRequestHead) -> String {
        let origin = head.headers.first(name: "origin") ?? ""
        return "the origin \(origin) may not use /rpc: start docserver with --http-allow-origin \(origin) to let its pages in"
    }

    private static func normalized(_ origin: String) -> String {
        var text = origin.trimmingCharacters(in: " \t").lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// `host` (a `Host` header: name or address, and maybe `:port`) is an IP address or localhost.
    static func isAddressOrLocalhost(_ host: String) -> Bool {
        if host.hasPrefix("[") { return host.contains("]") }  // an IPv6 address, [::1]:8080
        let name = host.split(separator: ":", maxSplits: 1).first.map(String.init) ?? host
        if name == "localhost" { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber) && (Int(part) ?? 256) <= 255
        }
    }
}

private extension String {
    func trimmingCharacters(in characters: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, characters.contains(first) { slice.removeFirst() }
        while let last = slice.last, characters.contains(last) { slice.removeLast() }
        return String(slice)
    }
}
