/// A set of Unicode scalars: a class `[…]`, an escape such as `\d` or `\p{Lu}`, or `.`.
indirect enum ScalarSet: Equatable, Sendable {
    /// Scalars in one of the ranges (of scalar values).
    case ranges([ClosedRange<UInt32>])
    /// Scalars with a property.
    case property(ScalarProperty)
    /// Scalars not in the set.
    case inverted(ScalarSet)
    /// Scalars in any of the sets.
    case union([ScalarSet])
    /// Scalars in every one of the sets.
    case intersection([ScalarSet])
    /// Scalars in the first set but not in the second.
    case difference(ScalarSet, ScalarSet)

    /// `.` without `(?s)`: anything but a line terminator.
    static let anyButLineTerminator = ScalarSet.inverted(.property(.lineTerminator))
    /// `.` with `(?s)`: any scalar.
    static let anyScalar = ScalarSet.property(.any)

    /// Whether `scalar` is in the set. Case-insensitively, a scalar is in a range or
    /// property when its simple case folding, upper or lower case form is (the case closure
    /// is taken before inverting, as ICU does).
    func contains(_ scalar: Unicode.Scalar, caseInsensitive: Bool) -> Bool {
        switch self {
        case .ranges, .property:
            if leafContains(scalar.value) { return true }
            guard caseInsensitive else { return false }
            for variant in CaseFolding.variants(of: scalar) where variant != scalar.value && leafContains(variant) { return true }
            return false
        case .inverted(let set):
            return !set.contains(scalar, caseInsensitive: caseInsensitive)
        case .union(let sets):
            for set in sets where set.contains(scalar, caseInsensitive: caseInsensitive) { return true }
            return false
        case .intersection(let sets):
            for set in sets where !set.contains(scalar, caseInsensitive: caseInsensitive) { return false }
            return true
        case .difference(let kept, let removed):
            return kept.contains(scalar, caseInsensitive: caseInsensitive) && !removed.contains(scalar, caseInsensitive: caseInsensitive)
        }
    }

    private func leafContains(_ value: UInt32) -> Bool {
        switch self {
        case .ranges(let ranges):
            for range in ranges where range.contains(value) { return true }
            return false
        case .property(let property):
            guard let scalar = Unicode.Scalar(value) else { return false }
            return property.contains(scalar)
        default:
            return false
        }
    }
}

/// A set of scalars prepared for matching: membership of the ASCII scalars is looked up in
/// a bitmap made once, the rest is asked of the set.
struct ScalarClass {
    let set: ScalarSet
    let caseInsensitive: Bool
    private let low: UInt64
    private let high: UInt64

    init(_ set: ScalarSet, caseInsensitive: Bool) {
        self.set = set
        self.caseInsensitive = caseInsensitive
        var low: UInt64 = 0
        var high: UInt64 = 0
        for value in UInt32(0)..<128 {
            guard let scalar = Unicode.Scalar(value), set.contains(scalar, caseInsensitive: caseInsensitive) else { continue }
            if value < 64 { low |= 1 << UInt64(value) } else { high |= 1 << UInt64(value - 64) }
        }
        self.low = low
        self.high = high
    }

    @inline(__always)
    func contains(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 64 { return low & (1 << UInt64(value)) != 0 }
        if value < 128 { return high & (1 << UInt64(value - 64)) != 0 }
        return set.contains(scalar, caseInsensitive: caseInsensitive)
    }
}
