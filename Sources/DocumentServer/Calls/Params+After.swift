import DocumentProtocol

/// `after`, the consistency parameter of `get` and `fetch` (docs/PROTOCOL.md, Reading after a
/// save): the `seq` of a save's answer, from any server on the same store. The answer holds
/// that commit and every one before it; a server that has not applied it waits for it (over a
/// shared database, up to `--read-after-wait-ms`), else answers `not caught up` (-32010).
extension Params {
    /// The name of the parameter.
    static let after = "after"

    /// `after`: a commit number (an integer from 0), or nil when absent or null.
    func after() throws(RPCError) -> Int64? {
        guard let value = self[Self.after], value != .null else { return nil }
        guard case .number(let text) = value, let number = Int64(text), number >= 0 else {
            throw .invalidParams(path(Self.after), "must be the seq of a commit (an integer from 0), not \(Self.describe(value))")
        }
        return number
    }
}
