/// Why a `MATCHES` pattern was refused: what is wrong and where, as an offset in Unicode
/// scalars from 0. ``ValueTest`` turns it into ``PredicateError/invalidRegularExpression(pattern:reason:)``.
struct RegexSyntaxError: Error, Equatable, CustomStringConvertible {
    let offset: Int
    let reason: String

    var description: String { "\(reason) at offset \(offset)" }
}
