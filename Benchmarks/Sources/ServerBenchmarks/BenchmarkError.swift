/// Why the benchmark could not run (as opposed to a figure with errors, which is reported).
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
