/// A failure of the test harness itself (a server that does not start, a read that times out…).
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
