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

    /// The predicate with a variable per slot.
    let predicate: Predicate
    let slots: [Slot]

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
    }

    /// The predicate of `arguments`; nil when their number is not the slots' or one does not
    /// fit its specifier (a parse of the format then says what was wrong, and where).
    func bind(_ arguments: [PredicateValue]) -> Predicate? {
        guard arguments.count == slots.count else { return nil }
        if slots.isEmpty { return predicate }
        var values: [String: Expression] = [:]
        values.reserveCapacity(slots.count)
        for (number, slot) in slots.enumerated() {
            guard let expression = try? PredicateParser.expression(of: arguments[number], for: slot.specifier, offset: slot.offset) else {
                return nil
            }
            values[Self.slotName(number)] = expression
        }
        return predicate.substituted(expressions: values)
    }
}
