import GraphCore
import DocumentProtocol
import JSONCore

/// Gives a predicate error found after parsing (an unknown key, a `$variable`, a value of
/// the wrong type for a key) the `position` that syntax errors have: the character offset
/// of the key or variable in the predicate text.
enum PredicatePosition {
    /// The text in the predicate an error is about, when it names one.
    static func subject(of error: GraphCore.PredicateError) -> String? {
        switch error {
        case .unknownKey(_, let key): return key
        case .unboundVariable(let name): return "$" + name
        case .typeMismatch(let subject, _, _):
            // "Song.plays" names the key "plays"; an operator or function has no single place.
            guard let key = subject.split(separator: ".").last, subject.contains(".") else { return nil }
            return String(key)
        default: return nil
        }
    }

    /// `reply` with the position of its error's subject in `format` added, when it lacks one.
    static func placed(_ reply: Reply, in format: String?) -> Reply {
        guard case .error(let error) = reply, let subject = error.predicateSubject, let format,
              case .object(var pairs) = error.data, !pairs.contains(where: { $0.key == "position" }),
              let position = offset(of: subject, in: format) else { return reply }
        pairs.append(("position", .integer(Int64(position))))
        var placed = error
        placed.data = .object(pairs)
        placed.message += " (at character \(position) of the predicate)"
        return .error(placed)
    }

    /// The character offset of the first `word` in `format` that stands as a key or variable
    /// of its own (not inside a quoted string, not part of a longer name).
    static func offset(of word: String, in format: String) -> Int? {
        let characters = Array(format)
        let target = Array(word)
        guard !target.isEmpty else { return nil }
        var quote: Character?
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if let open = quote {
                if character == "\\" { index += 1 } else if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if characters[index...].starts(with: target),
                      index == 0 || !isNameCharacter(characters[index - 1]) || target[0] == "$",
                      index + target.count == characters.count || !isNameCharacter(characters[index + target.count]) {
                if index == 0 || characters[index - 1] != "$" || target[0] == "$" { return index }
            }
            index += 1
        }
        return nil
    }

    private static func isNameCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_" || character == "$" || character == "#"
    }
}
