import Foundation

/// A key's leading bits as one `UInt64` whose unsigned order never contradicts the order of
/// keys (``IndexKey/order(_:_:)``): when two keys' bits differ, the keys differ the same way;
/// equal bits say nothing. The class of the key is in the top three bits, then the first 61
/// bits of the key's order-keeping bits (``RadixItem/bits(of:)``; numbers, integers and doubles
/// alike, by their value as a double). A key without such bits (an object, a string that does
/// not start in ASCII) has ``unknown``, which decides nothing.
///
/// A search compares the bits first, from a column of 8 bytes an entry, and reads the full key
/// only when they do not decide.
enum IndexSearchBits {
    /// The bits of a key that has none: every comparison with it goes to the full keys.
    static let unknown = UInt64.max

    static func of(_ key: IndexKey) -> UInt64 {
        switch key {
        case .null: return 0
        case .int(let i): return classed(1, doubleBits(Double(i)))
        case .double(let d): return classed(1, doubleBits(d))
        case .nan: return classed(2, 0)
        case .string: return RadixItem.bits(of: key).map { classed(3, $0.high) } ?? unknown
        case .date(let d): return classed(4, doubleBits(d.timeIntervalSinceReferenceDate))
        case .object: return unknown
        }
    }

    /// -1 or 1 when the bits decide the order of their keys, 0 when only the keys can.
    @inline(__always)
    static func order(_ a: UInt64, _ b: UInt64) -> Int {
        if a == b || a == unknown || b == unknown { return 0 }
        return a < b ? -1 : 1
    }

    private static func classed(_ rank: UInt64, _ bits: UInt64) -> UInt64 { rank << 61 | bits >> 3 }

    /// The order-keeping bits of a double (-0 as 0; NaN never comes here).
    private static func doubleBits(_ d: Double) -> UInt64 {
        let pattern = (d == 0 ? 0.0 : d).bitPattern
        return pattern & (1 << 63) != 0 ? ~pattern : pattern | (1 << 63)
    }
}
