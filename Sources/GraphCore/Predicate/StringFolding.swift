import Foundation

/// Case and diacritic folding for `[c]`, `[d]` and `[cd]`, with a fast path for ASCII.
///
/// The full path is Foundation's `folding(options:locale:)` with `locale: nil` (Unicode
/// case folding, so `"Straße" ==[c] "STRASSE"`; diacritics removed, so
/// `"Ünïcödé" ==[cd] "unicode"`). It costs about a microsecond a string, so a string of
/// ASCII characters (nearly every key in practice) is folded by lowering its bytes, which
/// gives the same result.
enum StringFolding {
    static func foundationOptions(_ options: Comparison.Options) -> String.CompareOptions {
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        return folding
    }

    /// The folded string (Foundation's folding; ASCII strings by lowering bytes).
    static func fold(_ s: String, _ options: Comparison.Options) -> String {
        if options.isEmpty { return s }
        var copy = s
        // 0: not ASCII; 1: ASCII, nothing to lower; 2: ASCII with capitals to lower.
        let state = copy.withUTF8 { buffer -> Int in
            var hasCapital = false
            for b in buffer {
                if b >= 0x80 { return 0 }
                if b >= 0x41 && b <= 0x5A { hasCapital = true }
            }
            return hasCapital && options.contains(.caseInsensitive) ? 2 : 1
        }
        switch state {
        case 1: return s
        case 2: return copy.withUTF8 { String(decoding: $0.lazy.map(lower), as: UTF8.self) }
        default: return s.folding(options: foundationOptions(options), locale: nil)
        }
    }

    @inline(__always) static func lower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }

    @inline(__always) static func isASCII(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        for b in buffer where b >= 0x80 { return false }
        return true
    }
}

/// A string constant prepared for comparing many strings with it under options: folded
/// once, and kept as lowered ASCII bytes when it is ASCII (the fast path).
struct FoldedConstant {
    let options: Comparison.Options
    let folded: String
    /// The folded constant's bytes when it is ASCII without line breaks (a CR LF pair is one
    /// character, so byte matching would split it).
    let asciiBytes: [UInt8]?

    init(_ s: String, options: Comparison.Options) {
        self.options = options
        folded = StringFolding.fold(s, options)
        let bytes = Array(folded.utf8)
        asciiBytes = bytes.allSatisfy { $0 < 0x80 && $0 != 0x0A && $0 != 0x0D } ? bytes : nil
    }

    /// Runs `fast` on the lowered bytes of `s` when both it and the constant are ASCII (no
    /// line breaks); otherwise `slow` on the folded `s` and the folded constant.
    @inline(__always)
    func compare(_ s: String, fast: (UnsafeBufferPointer<UInt8>, [UInt8], Bool) -> Bool, slow: (String, String) -> Bool) -> Bool {
        if let asciiBytes {
            var s = s
            let result: Bool? = s.withUTF8 { buffer in
                for b in buffer where b >= 0x80 || b == 0x0A || b == 0x0D { return nil }
                return fast(buffer, asciiBytes, options.contains(.caseInsensitive))
            }
            if let result { return result }
        }
        return slow(StringFolding.fold(s, options), folded)
    }

    func equals(_ s: String) -> Bool {
        compare(s, fast: { buffer, constant, lower in
            guard buffer.count == constant.count else { return false }
            for i in 0..<buffer.count where (lower ? StringFolding.lower(buffer[i]) : buffer[i]) != constant[i] { return false }
            return true
        }, slow: { $0 == $1 })
    }

    func hasPrefix(_ s: String) -> Bool {
        compare(s, fast: { buffer, constant, lower in
            guard buffer.count >= constant.count else { return false }
            for i in 0..<constant.count where (lower ? StringFolding.lower(buffer[i]) : buffer[i]) != constant[i] { return false }
            return true
        }, slow: { $0.hasPrefix($1) })
    }

    func hasSuffix(_ s: String) -> Bool {
        compare(s, fast: { buffer, constant, lower in
            guard buffer.count >= constant.count else { return false }
            let start = buffer.count - constant.count
            for i in 0..<constant.count where (lower ? StringFolding.lower(buffer[start + i]) : buffer[start + i]) != constant[i] {
                return false
            }
            return true
        }, slow: { $0.hasSuffix($1) })
    }

    func isContained(in s: String) -> Bool {
        compare(s, fast: { buffer, constant, lower in
            if constant.isEmpty { return true }
            guard buffer.count >= constant.count else { return false }
            outer: for start in 0...(buffer.count - constant.count) {
                for i in 0..<constant.count where (lower ? StringFolding.lower(buffer[start + i]) : buffer[start + i]) != constant[i] {
                    continue outer
                }
                return true
            }
            return false
        }, slow: { $1.isEmpty || $0.contains($1) })
    }
}
