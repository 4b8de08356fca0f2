import Foundation

/// A built-in function of NSExpression, named by its selector as on Apple platforms.
///
/// Written in a format string as a call, `sqrt(plays)`, `sum(songs.plays)`, `now()`,
/// `modulus:by:(plays, 7)`, as `FUNCTION(plays, 'sqrt:')`, or as an operator: `+ - * / **`
/// (`add:to:`, `from:subtract:`, `multiply:by:`, `divide:by:`, `raise:toPower:`), `&` and `|`
/// (`bitwiseAnd:with:`, `bitwiseOr:with:`), `~` (`onesComplement:`) and unary `-` (`0 - x`).
/// Their results are described in `docs/PREDICATES.md`.
public enum BuiltinFunction: String, Sendable, Hashable, CaseIterable {
    /// The sum of a collection's numbers.
    case sum = "sum:"
    /// The number of elements of a collection.
    case count = "count:"
    /// The smallest value of a collection.
    case min = "min:"
    /// The largest value of a collection.
    case max = "max:"
    /// The mean of a collection's numbers.
    case average = "average:"
    /// The median of a collection's numbers.
    case median = "median:"
    /// The most frequent values of a collection (a collection: every value that ties).
    case mode = "mode:"
    /// The population standard deviation of a collection's numbers.
    case stddev = "stddev:"
    /// `a + b`.
    case add = "add:to:"
    /// `a - b`.
    case subtract = "from:subtract:"
    /// `a * b`.
    case multiply = "multiply:by:"
    /// `a / b`.
    case divide = "divide:by:"
    /// The remainder of `a / b`.
    case modulus = "modulus:by:"
    /// `a ** b`.
    case power = "raise:toPower:"
    /// The square root.
    case sqrt = "sqrt:"
    /// The base-10 logarithm.
    case log = "log:"
    /// The natural logarithm.
    case ln = "ln:"
    /// e to the power of the argument.
    case exp = "exp:"
    /// The largest integral value not greater than the argument.
    case floor = "floor:"
    /// The smallest integral value not less than the argument.
    case ceiling = "ceiling:"
    /// The absolute value.
    case abs = "abs:"
    /// The integral part (rounded toward zero).
    case trunc = "trunc:"
    /// A string in upper case.
    case uppercase = "uppercase:"
    /// A string in lower case.
    case lowercase = "lowercase:"
    /// The length of a string in UTF-16 code units, as `NSString.length`: `name.length > 0`
    /// (a key path ending in `.length` on a string) and `length(name)`. Not an NSExpression
    /// built-in: GraphCore's reading of the `length` key that Core Data's SQL store understands.
    case length = "length:"
    /// `a & b` on integers.
    case bitwiseAnd = "bitwiseAnd:with:"
    /// `a | b` on integers.
    case bitwiseOr = "bitwiseOr:with:"
    /// `a ^ b` on integers.
    case bitwiseXor = "bitwiseXor:with:"
    /// `a << b` on integers (bits shifted out are lost).
    case leftShift = "leftshift:by:"
    /// `a >> b` on integers (the sign is kept).
    case rightShift = "rightshift:by:"
    /// `~a` on integers.
    case onesComplement = "onesComplement:"
    /// The current date, when the expression is evaluated.
    case now = "now"
    /// A random double in [0, 1).
    case random = "random"
    /// A random integer in [0, n).
    case randomBelow = "random:"
    /// The argument itself (a hint to SQL stores on Apple platforms not to use an index).
    case noIndex = "noindex:"

    /// How many arguments the function takes.
    public var arity: Int {
        switch self {
        case .now, .random: return 0
        case .add, .subtract, .multiply, .divide, .modulus, .power, .bitwiseAnd, .bitwiseOr, .bitwiseXor,
             .leftShift, .rightShift:
            return 2
        default: return 1
        }
    }

    /// Whether the argument is a collection whose elements the function reads.
    public var takesCollection: Bool {
        switch self {
        case .sum, .count, .min, .max, .average, .median, .mode, .stddev: return true
        default: return false
        }
    }

    /// The infix operator that writes the function, if one does.
    public var infixOperator: String? {
        switch self {
        case .add: return "+"
        case .subtract: return "-"
        case .multiply: return "*"
        case .divide: return "/"
        case .power: return "**"
        case .bitwiseAnd: return "&"
        case .bitwiseOr: return "|"
        default: return nil
        }
    }

    /// The function a call spelling names: the selector (`raise:toPower:`, `sqrt:`) or its
    /// first part (`sqrt`, `random` with no argument, `random` with one), case-insensitively.
    /// `avg` and `ceil` are accepted too.
    public init?(callName: String, arity: Int) {
        let name = callName.lowercased()
        for function in Self.allCases where function.arity == arity {
            let selector = function.rawValue.lowercased()
            if selector == name { self = function; return }
            let first = selector.split(separator: ":").first.map(String.init) ?? selector
            if first == name || (name.hasSuffix(":") && first + ":" == name) { self = function; return }
        }
        switch (name, arity) {
        case ("avg", 1), ("avg:", 1): self = .average
        case ("ceil", 1), ("ceil:", 1): self = .ceiling
        default: return nil
        }
    }

    /// The function `FUNCTION(receiver, 'selector', arguments…)` stands for, when the
    /// selector is a built-in's (the receiver is its first argument) or one of the string and
    /// date methods that map to one (`uppercaseString`, `lowercaseString`,
    /// `dateByAddingTimeInterval:`).
    static func forSelector(_ selector: String, arguments: Int) -> BuiltinFunction? {
        switch (selector, arguments) {
        case ("uppercaseString", 0): return .uppercase
        case ("lowercaseString", 0): return .lowercase
        case ("length", 0): return .length
        case ("dateByAddingTimeInterval:", 1): return .add
        case ("count", 0), ("@count", 0): return .count
        default:
            guard let function = BuiltinFunction(rawValue: selector), function.arity == arguments + 1 else { return nil }
            return function
        }
    }
}
