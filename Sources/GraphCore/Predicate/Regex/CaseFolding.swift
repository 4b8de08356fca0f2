/// Simple (one scalar to one scalar) case folding, as `MATCHES[c]` and `(?i)` compare.
///
/// A scalar folds to the lower case of its upper case when both mappings are single
/// scalars (so `ſ`, `S` and `s` fold alike, and so do `ς`, `Σ` and `σ`), else to its lower
/// case when that is a single scalar, else to itself. ASCII takes a fast path.
enum CaseFolding {
    static func fold(_ scalar: Unicode.Scalar) -> UInt32 {
        let value = scalar.value
        if value < 0x80 { return value >= 0x41 && value <= 0x5A ? value | 0x20 : value }
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
        let properties = scalar.properties
        guard properties.changesWhenCaseMapped else { return [] }
        var forms: [UInt32] = [fold(scalar)]
        if let upper = single(properties.uppercaseMapping) { forms.append(upper.value) }
        if let lower = single(properties.lowercaseMapping) { forms.append(lower.value) }
        if let title = single(properties.titlecaseMapping) { forms.append(title.value) }
        return forms
    }

    private static func single(_ text: String) -> Unicode.Scalar? {
        var scalars = text.unicodeScalars.makeIterator()
        guard let first = scalars.next(), scalars.next() == nil else { return nil }
        return first
    }
}
