import Foundation
import Testing
@testable import GraphCore
import ServerTestSupport

/// The bits a search compares before the keys never contradict the order of the keys.
@Suite struct IndexSearchBitsTests {
    /// Keys of every class, with the edges of each: integers beyond a double's 53 bits, -0 and
    /// 0, 1 and 1.0, infinities, strings sharing 8 or 16 bytes, with NUL, non-ASCII, empty.
    private static let keys: [IndexKey] = {
        var keys: [IndexKey] = [.null, .nan, .int(.min), .int(.max), .int(-1), .int(0), .int(1), .int(1 << 53), .int(1 << 53 + 1),
                                .int(1 << 53 - 1), .double(0), .double(-0.0), .double(1), .double(1.5), .double(-1.5),
                                .double(9_007_199_254_740_992), .double(.infinity), .double(-.infinity),
                                .double(.leastNonzeroMagnitude), .double(-.greatestFiniteMagnitude)]
        keys += ["", "a", "a\u{0}", "a\u{0}b", "abcdefgh", "abcdefgh1", "abcdefgh2", "abcdefghijklmnop", "abcdefghijklmnopq",
                 "abcdefghijklmnopqé", "é", "e\u{301}", "ea", "z", "Z", "new 1000001", "new 1000002", "new 999"].map { .string($0) }
        keys += [-1e9, -1, 0, 1, 1e9].map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        var rng = SplitMix64(seed: 5)
        for _ in 0..<200 {
            keys.append(.int(Int64.random(in: -1_000...1_000, using: &rng)))
            keys.append(.double(Double(Int.random(in: -1_000...1_000, using: &rng)) / 4))
            keys.append(.string(String((0..<Int.random(in: 0..<20, using: &rng)).map { _ in "ab~é\u{0}".randomElement(using: &rng) ?? "a" })))
        }
        return keys
    }()

    @Test func bitsThatDifferOrderTheirKeysAsTheKeysCompare() {
        for a in Self.keys {
            for b in Self.keys {
                let byBits = IndexSearchBits.order(IndexSearchBits.of(a), IndexSearchBits.of(b))
                if byBits != 0 { #expect(byBits == IndexKey.order(a, b), "\(a) against \(b)") }
            }
        }
    }

    @Test func keysThatCompareEqualHaveEqualBitsOrUnknown() {
        let unknown = IndexSearchBits.unknown
        #expect(IndexSearchBits.of(.int(1)) == IndexSearchBits.of(.double(1)))
        #expect(IndexSearchBits.of(.double(-0.0)) == IndexSearchBits.of(.int(0)))
        #expect(IndexSearchBits.of(.string("é")) == unknown)
        #expect(IndexSearchBits.of(.string("abc")) != unknown)
    }
}
