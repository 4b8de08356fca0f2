import Foundation

/// The names and numbers of the store file format (`docs/FILE_FORMAT.md`).
enum StoreFileFormat {
    /// The value of the top-level `format` key.
    static let name = "graphcore-json-store"
    /// The `formatVersion` this program reads and writes.
    static let version: Int64 = 1

    /// The reference after `reference`, saturated: `Int64.max` is the "none left" mark of
    /// `nextReference` (docs/FILE_FORMAT.md), never a trap.
    static func reference(after reference: Int64) -> Int64 {
        reference < Int64.max ? reference + 1 : Int64.max
    }
}
