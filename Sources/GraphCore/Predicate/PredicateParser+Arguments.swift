import Foundation

// Format arguments: what each specifier of NSString formatting takes and gives.
//
// `%@` any value; `%K` a key path; `%d %i %D` (with `hh`, `h`, or `l ll q z t j`) a signed
// integer; `%u %o %x %X %U %O` a non-negative integer; `%e %E %f %F %g %G %a %A` a number;
// `%c` one character of code 0–255 (or that code); `%C` one UTF-16 character (or its code);
// `%s %S` a string; `%p` an object or an integer. An argument that does not fit is an error
// naming the specifier and its offset, never a truncation.

extension PredicateParser {
    /// The expression a format specifier stands for, taking the next argument. Parsing a
    /// template, a slot instead (``PredicateTemplate``): what the argument gives is bound later.
    mutating func argument(_ specifier: String, at token: PredicateToken) throws(PredicateError) -> Expression {
        if let found = slots {
            // A key path's structure is the argument itself: no slot can stand for it.
            if specifier == "%K" { slotsHold = false }
            let slot = PredicateTemplate.Slot(specifier: specifier, offset: offset(token))
            slots?.append(slot)
            return .variable(PredicateTemplate.slotName(found.count))
        }
        let argument = try nextArgument(specifier, at: token)
        return try Self.expression(of: argument, for: specifier, offset: offset(token))
    }

    /// The expression `argument` gives a format `specifier` at `offset`: what it takes and
    /// gives is listed at the top of this file.
    static func expression(of argument: PredicateValue, for specifier: String, offset: Int) throws(PredicateError) -> Expression {
        func wrong(_ expected: String) -> PredicateError {
            .wrongArgument(specifier: specifier, offset: offset, expected: expected, got: Self.describe(argument))
        }
        let conversion = specifier.last ?? "@"
        let length = String(specifier.dropFirst().dropLast())
        switch conversion {
        case "@":
            return Self.expression(argument)
        case "K":
            guard case .value(.string(let path)) = argument else { throw wrong("a key path string") }
            guard !path.isEmpty else { throw wrong("a non-empty key path") }
            guard PredicateLexer.isKeyPath(path) else { throw wrong("a key path of names separated by '.'") }
            return .keyPath(path)
        case "d", "i", "D", "u", "o", "x", "X", "U", "O":
            let signed = "diD".contains(conversion)
            let range = Self.integerRange(length: length, signed: signed)
            let what = signed ? (range == Int64.min...Int64.max ? "an integer" : "an integer in \(range.lowerBound)...\(range.upperBound)")
                : (range.upperBound == Int64.max ? "a non-negative integer up to 2^63-1" : "an integer in 0...\(range.upperBound)")
            guard let integer = Self.integer(argument), range.contains(integer) else { throw wrong(what) }
            return .constant(.int(integer))
        case "e", "E", "f", "F", "g", "G", "a", "A":
            switch argument {
            case .value(.double): return Self.expression(argument)
            case .value(.int(let i)): return .constant(.double(Double(i)))
            case .value(.decimal(let d)): return .constant(.double(NSDecimalNumber(decimal: d).doubleValue))
            case .value(.bool(let b)): return .constant(.double(b ? 1 : 0))
            default: throw wrong("a number")
            }
        case "c", "C":
            let limit: UInt32 = conversion == "c" ? 0xFF : 0xFFFF
            let scalar: Unicode.Scalar?
            switch argument {
            case .value(.string(let s)) where s.unicodeScalars.count == 1: scalar = s.unicodeScalars.first
            case .value(.int(let i)): scalar = UInt32(exactly: i).flatMap(Unicode.Scalar.init)
            default: scalar = nil
            }
            guard let scalar, scalar.value <= limit else {
                throw wrong(conversion == "c" ? "one character of code 0 to 255, or its code" : "one UTF-16 character (not a surrogate), or its code")
            }
            return .constant(.string(String(scalar)))
        case "s", "S":
            guard case .value(.string) = argument else { throw wrong("a string") }
            return Self.expression(argument)
        default:  // "p"
            switch argument {
            case .value(.object), .value(.int): return Self.expression(argument)
            default: throw wrong("an object or an integer address")
            }
        }
    }

    /// The integers an integer specifier takes: `hh` and `h` limit them to 8 and 16 bits, any
    /// other length takes all 64; unsigned conversions take no negative one.
    static func integerRange(length: String, signed: Bool) -> ClosedRange<Int64> {
        switch (length, signed) {
        case ("hh", true): Int64(Int8.min)...Int64(Int8.max)
        case ("h", true): Int64(Int16.min)...Int64(Int16.max)
        case (_, true): Int64.min...Int64.max
        case ("hh", false): 0...Int64(UInt8.max)
        case ("h", false): 0...Int64(UInt16.max)
        case (_, false): 0...Int64.max
        }
    }

    /// The key a `%K` (or a `%@` given a string) inside a key path stands for: `%K.%K`, `$x.%K`.
    mutating func keyArgument(_ specifier: String, at token: PredicateToken) throws(PredicateError) -> String {
        if slots != nil {
            // A key is structure: no slot can stand for it.
            slotsHold = false
            return "key"
        }
        let argument = try nextArgument(specifier, at: token)
        guard case .value(.string(let path)) = argument, PredicateLexer.isKeyPath(path) else {
            throw PredicateError.wrongArgument(specifier: specifier, offset: offset(token), expected: "a non-empty key path string",
                                               got: Self.describe(argument))
        }
        return path
    }

    mutating func nextArgument(_ specifier: String, at token: PredicateToken) throws(PredicateError) -> PredicateValue {
        guard argumentIndex < arguments.count else {
            throw PredicateError.missingArgument(specifier: specifier, offset: offset(token))
        }
        defer { argumentIndex += 1 }
        return arguments[argumentIndex]
    }

    /// An integer argument: an integer, a bool (0 or 1) or a double with an integral value
    /// in the 64-bit range (2^63 as a double is not one).
    static func integer(_ argument: PredicateValue) -> Int64? {
        switch argument {
        case .value(.int(let i)): return i
        case .value(.bool(let b)): return b ? 1 : 0
        case .value(.double(let d)): return Int64(exactly: d)
        default: return nil
        }
    }

    /// How an argument reads in an error: its kind and (short) value.
    static func describe(_ argument: PredicateValue) -> String {
        switch argument {
        case .value(let v):
            switch v {
            case .int, .double, .bool: return "\(v.kindName) \(v.formatLiteral.prefix(40))"
            default: return v.kindName
            }
        case .array: return "array"
        }
    }

    static func expression(_ argument: PredicateValue) -> Expression {
        switch argument {
        case .value(let value): return .constant(value)
        case .array(let elements): return .array(elements.map(expression))
        }
    }
}

extension Predicate {
    /// Parses a format string; `%@`, `%K`, `%d`, `%lu`, `%f`, … take the arguments in order (what each
    /// takes is listed in `docs/PREDICATES.md`).
    ///
    /// ```swift
    /// let p = try Predicate(format: "album.title == %@ AND plays > %d", arguments: ["Blue Train", 10])
    /// ```
    ///
    /// Give a `model` to read object IDs written as `CAST("graph://…", "ObjectID")` (as
    /// ``description`` prints them).
    ///
    /// - Throws: ``PredicateError`` naming the offset and what was expected there.
    public init(format: String, arguments: [PredicateValue], model: ObjectModel? = nil) throws(PredicateError) {
        var parser = PredicateParser(format: format, arguments: arguments, model: model)
        self = try parser.parse()
    }

    /// Parses a format string with Swift values as arguments.
    ///
    /// ```swift
    /// let p = try Predicate(format: "title BEGINSWITH[c] %@ AND plays > %d", "blue", 10)
    /// ```
    ///
    /// - Throws: ``PredicateError`` naming the offset and what was expected there.
    public init(format: String, _ arguments: any PredicateArgument...) throws(PredicateError) {
        try self.init(format: format, arguments: arguments.map(\.predicateValue))
    }

    /// Parses a format string, as ``init(format:_:)``, where the type is known from context.
    ///
    /// Foundation has a `Predicate` type of its own, so a file that imports both Foundation and
    /// GraphCore must write `GraphCore.Predicate(format: …)`; this spelling needs no type name:
    ///
    /// ```swift
    /// request.predicate = try .format("title BEGINSWITH[c] %@ AND plays > %d", "blue", 10)
    /// ```
    ///
    /// - Throws: ``PredicateError`` naming the offset and what was expected there.
    public static func format(_ format: String, _ arguments: any PredicateArgument...) throws(PredicateError) -> Predicate {
        try Predicate(format: format, arguments: arguments.map(\.predicateValue))
    }
}
