/// Simple (one scalar to one scalar) case folding, as `MATCHES[c]` and `(?i)` compare.
///
/// A scalar folds to the lower case of its upper case when both mappings are single
/// scalars (so `ſ`, `S` and `s` fold alike, and so do `ς`, `Σ` and `σ`), else to its lower
/// case when that is a single scalar, else to itself. The Turkic dotless `ı` and dotted `İ`
/// fold to themselves, as in Unicode's simple case folding. ASCII takes a fast path.
enum CaseFolding {
    static func fold(_ scalar: Unicode.Scalar) -> UInt32 {
        let value = scalar.value
        if value < 0x80 { return value >= 0x41 && value <= 0x5A ? value | 0x20 : value }
        if value == 0x131 || value == 0x130 { return value }
        let properties = scalar.properties
        guard properties.changesWhenCaseMapped else { return value }
        let upper = single(properties.uppercaseMapping) ?? scalar
        if let folded = single(upper.properties.lowercaseMapping) { return folded.value }
        return single(properties.lowercaseMapping)?.value ?? value
    }

    /// The forms a case-insensitive set test also tries: the folding, upper and lower case.
    static func variants(of scalar: Unicode.Scalar) -> [UInt32] {
        let value = scalar.value
        if value < 0x80 {
            if value >= 0x41 && value <= 0x5A { return [value | 0x20] }
            if value >= 0x61 && value <= 0x7A { return [value & ~0x20] }
            return []
        }
        if value == 0x131 || value == 0x130 { return [] }
        if let extra = unmappedPartners[value] { return extra }
        let properties = scalar.properties
        guard properties.changesWhenCaseMapped else { return [] }
        var forms: [UInt32] = [fold(scalar)]
        if let upper = single(properties.uppercaseMapping) { forms.append(upper.value) }
        if let lower = single(properties.lowercaseMapping) { forms.append(lower.value) }
        if let title = single(properties.titlecaseMapping) { forms.append(title.value) }
        return forms
    }

    /// Scalars that fold together although no single-scalar mapping leads from the first to
    /// the second: `ß` and capital `ẞ`.
    private static let unmappedPartners: [UInt32: [UInt32]] = [0xDF: [0x1E9E], 0x1E9E: [0xDF]]

    /// The scalars a scalar's full case folding gives when they are more than one (`ß`:
    /// `ss`, `ﬁ`: `fi`), else nil. A case-insensitive literal matches them too, as in ICU.
    static func expansion(of scalar: Unicode.Scalar) -> [Unicode.Scalar]? {
        guard scalar.value >= 0x80, scalar.properties.changesWhenCaseMapped else { return nil }
        let upper = scalar.properties.uppercaseMapping.unicodeScalars
        guard upper.count > 1 else { return nil }
        let folded = Array(upper.map { single($0.properties.lowercaseMapping) ?? $0 })
        return folded.count <= 3 ? folded : nil
    }

    private static func single(_ text: String) -> Unicode.Scalar? {
        var scalars = text.unicodeScalars.makeIterator()
        guard let first = scalars.next(), scalars.next() == nil else { return nil }
        return first
    }
}
