import Foundation

/// An order of results: a key path (attributes, or across to-one relationships), ascending
/// or not, and how strings compare. nil sorts before every other value, as in Core Data.
///
/// ```swift
/// SortDescriptor("album.artist.name")
/// SortDescriptor("plays", ascending: false)
/// SortDescriptor("title", comparison: .localizedStandard)   // "Track 9" before "Track 10"
/// ```
public struct SortDescriptor: Sendable, Hashable {
    /// How strings are ordered.
    public enum StringComparison: Sendable, Hashable {
        /// By Unicode scalar values after canonical normalization (Swift's `<` on `String`):
        /// fast, the same everywhere; capitals before lowercase letters.
        case plain
        /// As ``plain`` after case folding (`"beta"` before `"Delta"`).
        case caseInsensitive
        /// Foundation's `compare(_:options:range:locale:)` with `Locale.current`: on Linux,
        /// swift-corelibs-foundation orders by the ICU collation of that locale (`"é"`
        /// between `"e"` and `"f"`).
        case localized
        /// As ``localized``, ignoring case.
        case localizedCaseInsensitive
        /// Foundation's `localizedStandardCompare(_:)`, the Finder's order: case-insensitive,
        /// numbers by value (`"a9"` before `"a10"`), by the current locale's collation.
        case localizedStandard
    }

    /// The key path to sort by.
    public var keyPath: String
    /// Smallest first (true) or largest first.
    public var ascending: Bool
    /// How strings compare.
    public var comparison: StringComparison

    /// An order by `keyPath`.
    public init(_ keyPath: String, ascending: Bool = true, comparison: StringComparison = .plain) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.comparison = comparison
    }

    /// An order by `keyPath`, case-insensitive or not.
    public init(_ keyPath: String, ascending: Bool = true, caseInsensitive: Bool) {
        self.init(keyPath, ascending: ascending, comparison: caseInsensitive ? .caseInsensitive : .plain)
    }

    /// Whether strings compare ignoring case.
    public var caseInsensitive: Bool { comparison == .caseInsensitive || comparison == .localizedCaseInsensitive || comparison == .localizedStandard }
}
