/// A format string parsed once, its format specifiers left as slots: ``bind(_:)`` gives, for
/// new arguments, the predicate ``Predicate/init(format:arguments:model:)`` gives them, without
/// parsing the format again. What a ``PredicateCache`` keeps for a format it has seen.
///
/// A format whose structure depends on its arguments has no template: `%K` (a key path),
/// a specifier after `.` (a key), and a specifier whose value the parse reads (negated, the
/// bounds of `BETWEEN`, the value of a `CAST`, the selector of `FUNCTION`).
struct PredicateTemplate: Sendable {
    /// Where a format specifier stands, and which one (what its argument must be).
    struct Slot: Sendable {
        let specifier: String
        /// The specifier's character offset in the format, for an argument's error.
        let offset: Int
    }

    /// What a slot's argument becomes, decided once: `%@` and the 64-bit integers are the
    /// frequent ones, bound without reading the specifier again.
    private enum Conversion: Sendable {
        /// `%@`: the argument as it is.
        case asIs
        /// `%d`, `%i`, `%ld`, `%lld`, …: an integer of the whole 64-bit range.
        case integer
        /// Any other: ``PredicateParser/expression(of:for:offset:)`` reads the specifier.
        case bySpecifier
    }

    /// The predicate with a variable per slot.
    let predicate: Predicate
    let slots: [Slot]
    private let conversions: [Conversion]
    /// Set when the predicate is one comparison with its only slot as a whole side (`plays ==
    /// %d`, `title BEGINSWITH[c] %@`), the most frequent shape: the comparison and whether the
    /// slot is its right side, which ``bind(_:)`` sets without a table of values and a walk.
    private let soleSlotSide: (comparison: Comparison, isRight: Bool)?

    /// The name of slot `number`'s variable: `%` cannot begin a variable a format names.
    static func slotName(_ number: Int) -> String { "%\(number)" }

    static func isSlotName(_ name: String) -> Bool { name.utf8.first == UInt8(ascii: "%") }

    /// The template of `format`; nil when the format does not parse, or its structure depends
    /// on its arguments.
    init?(format: String, model: ObjectModel?) {
        var parser = PredicateParser(format: format, arguments: [], model: model)
        parser.slots = []
        guard let parsed = try? parser.parse(), parser.slotsHold, let slots = parser.slots else { return nil }
        predicate = parsed
        self.slots = slots
        conversions = slots.map(Self.conversion)
        let slot = Expression.variable(Self.slotName(0))
        if slots.count == 1, case .comparison(let comparison) = parsed, (comparison.left == slot) != (comparison.right == slot) {
            soleSlotSide = (comparison, comparison.right == slot)
        } else {
            soleSlotSide = nil
        }
    }

    private static func conversion(of slot: Slot) -> Conversion {
        if slot.specifier == "%@" { return .asIs }
        // A signed integer of any 64-bit value takes the argument's integer as it is.
        guard let last = slot.specifier.last, "diD".contains(last) else { return .bySpecifier }
        let length = String(slot.specifier.dropFirst().dropLast())
        let whole = PredicateParser.integerRange(length: length, signed: true) == Int64.min...Int64.max
        return whole ? .integer : .bySpecifier
    }

    /// The expression of `argument` in slot `number`; nil when it does not fit.
    private func expression(of argument: PredicateValue, slot number: Int) -> Expression? {
        switch conversions[number] {
        case .asIs:
            return PredicateParser.expression(argument)
        case .integer:
            return PredicateParser.integer(argument).map { .constant(.int($0)) }
        case .bySpecifier:
            let slot = slots[number]
            return try? PredicateParser.expression(of: argument, for: slot.specifier, offset: slot.offset)
        }
    }

    /// The predicate of `arguments`; nil when their number is not the slots' or one does not
    /// fit its specifier (a parse of the format then says what was wrong, and where).
    func bind(_ arguments: [PredicateValue]) -> Predicate? {
        guard arguments.count == slots.count else { return nil }
        if slots.isEmpty { return predicate }
        if let (sole, isRight) = soleSlotSide, let first = arguments.first {
            guard let expression = expression(of: first, slot: 0) else { return nil }
            var comparison = sole
            if isRight { comparison.right = expression } else { comparison.left = expression }
            return .comparison(comparison)
        }
        var values: [String: Expression] = [:]
        values.reserveCapacity(slots.count)
        for number in slots.indices {
            guard let expression = expression(of: arguments[number], slot: number) else { return nil }
            values[Self.slotName(number)] = expression
        }
        return predicate.substituted(expressions: values)
    }
}
