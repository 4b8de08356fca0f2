import Foundation

/// The names and numbers of the store file format (`docs/FILE_FORMAT.md`).
enum StoreFileFormat {
    /// The value of the top-level `format` key.
    static let name = "graphcore-json-store"
    /// The `formatVersion` this program reads and writes.
    static let version: Int64 = 1
}
