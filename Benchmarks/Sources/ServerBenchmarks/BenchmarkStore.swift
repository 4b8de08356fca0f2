import BenchmarkSupport
import Foundation

/// A store file the benchmark wrote, and what it holds.
struct BenchmarkStore {
    let url: URL
    let shape: SampleStoreBuilder.Shape
    /// The file's size in bytes.
    let size: Int

    /// "100,000-object store, 12.7 MB": how much data a figure ran on.
    var label: String { "\(grouped(shape.total))-object store, \(megabytes(size))" }
}
