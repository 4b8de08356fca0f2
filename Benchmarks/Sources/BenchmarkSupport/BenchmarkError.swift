/// Why a benchmark could not run (as opposed to a figure with errors, which is reported).
public struct BenchmarkError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
