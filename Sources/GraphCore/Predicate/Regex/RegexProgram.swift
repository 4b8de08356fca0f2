/// One step of a ``RegexProgram``.
enum RegexInstruction {
    /// Consume this scalar.
    case scalar(Unicode.Scalar)
    /// Consume a scalar whose simple case folding is this value.
    case foldedScalar(UInt32)
    /// Consume a scalar of the program's class at this index.
    case set(Int)
    /// Go on at both targets (a thread each).
    case split(Int, Int)
    /// Go on at the target.
    case jump(Int)
    /// Go on only if the position passes the test.
    case assert(RegexAssertion)
    /// The whole text was consumed on a path through the pattern: it matches.
    case match
}

/// A compiled `MATCHES` pattern: instructions for a Thompson NFA, run by ``RegexMatcher``
/// in time proportional to the program's size times the text's length.
struct RegexProgram {
    /// The most instructions a pattern may compile to; repetitions are written out, so
    /// `a{1000}{1000}` would take a million and is refused.
    static let maximumSize = 10_000

    let instructions: [RegexInstruction]
    let classes: [ScalarClass]
    /// Whether an instruction tests a word boundary (the matcher then needs the scalars around).
    let hasAssertions: Bool
}

/// Turns a ``RegexNode`` into a ``RegexProgram``, refusing one past ``RegexProgram/maximumSize``.
struct RegexCompiler {
    private var instructions: [RegexInstruction] = []
    private var classes: [ScalarClass] = []
    private var hasAssertions = false

    static func compile(_ node: RegexNode, pattern: String) throws(RegexSyntaxError) -> RegexProgram {
        guard let size = Self.size(of: node), size < RegexProgram.maximumSize else {
            throw RegexSyntaxError(offset: 0, reason: "the pattern expands to more than \(RegexProgram.maximumSize) steps (repetitions are written out: make counts smaller)")
        }
        var compiler = RegexCompiler()
        compiler.instructions.reserveCapacity(size + 1)
        compiler.emit(node)
        compiler.instructions.append(.match)
        return RegexProgram(instructions: compiler.instructions, classes: compiler.classes, hasAssertions: compiler.hasAssertions)
    }

    /// How many instructions `node` compiles to; nil past the maximum (no arithmetic can trap).
    static func size(of node: RegexNode) -> Int? {
        let limit = RegexProgram.maximumSize
        func bounded(_ value: Int) -> Int? { value <= limit ? value : nil }
        switch node {
        case .empty: return 0
        case .scalar(_, let caseInsensitive): return caseInsensitive ? 7 : 1  // an expansion: split, 1, jump, up to 3
        case .set, .assertion: return 1
        case .possessive(let inner, _): return size(of: inner)
        case .concatenation(let items), .alternation(let items):
            var total = 0
            for item in items {
                guard let itemSize = size(of: item), let sum = bounded(total + itemSize + 2) else { return nil }
                total = sum
            }
            return total
        case .repetition(let inner, let min, let max):
            guard let body = size(of: inner) else { return nil }
            let copies = (max ?? min) + 1  // at most maximumRepetition + 1
            let (product, overflow) = copies.multipliedReportingOverflow(by: body + 2)
            return overflow ? nil : bounded(product)
        }
    }

    private mutating func emit(_ node: RegexNode) {
        switch node {
        case .empty:
            break
        case .scalar(let scalar, true) where CaseFolding.expansion(of: scalar) != nil:
            let split = instructions.count
            instructions.append(.jump(0))
            instructions.append(.foldedScalar(CaseFolding.fold(scalar)))
            let exit = instructions.count
            instructions.append(.jump(0))
            instructions[split] = .split(split + 1, instructions.count)
            for part in CaseFolding.expansion(of: scalar) ?? [] { instructions.append(.foldedScalar(CaseFolding.fold(part))) }
            instructions[exit] = .jump(instructions.count)
        case .scalar(let scalar, let caseInsensitive):
            if caseInsensitive, CaseFolding.variants(of: scalar).isEmpty == false {
                instructions.append(.foldedScalar(CaseFolding.fold(scalar)))
            } else {
                instructions.append(.scalar(scalar))
            }
        case .set(let set, let caseInsensitive):
            classes.append(ScalarClass(set, caseInsensitive: caseInsensitive))
            instructions.append(.set(classes.count - 1))
        case .assertion(let assertion):
            hasAssertions = true
            instructions.append(.assert(assertion))
        case .possessive(let inner, _):
            emit(inner)
        case .concatenation(let items):
            for item in items { emit(item) }
        case .alternation(let branches):
            var exits: [Int] = []
            for (position, branch) in branches.enumerated() {
                if position == branches.count - 1 {
                    emit(branch)
                } else {
                    let split = instructions.count
                    instructions.append(.jump(0))  // patched below
                    emit(branch)
                    exits.append(instructions.count)
                    instructions.append(.jump(0))
                    instructions[split] = .split(split + 1, instructions.count)
                }
            }
            for exit in exits { instructions[exit] = .jump(instructions.count) }
        case .repetition(let inner, let min, let max):
            for _ in 0..<min { emit(inner) }
            if let max {
                var exits: [Int] = []
                for _ in min..<max {
                    exits.append(instructions.count)
                    instructions.append(.jump(0))
                    emit(inner)
                }
                for exit in exits { instructions[exit] = .split(exit + 1, instructions.count) }
            } else {
                let loop = instructions.count
                instructions.append(.jump(0))
                emit(inner)
                instructions.append(.jump(loop))
                instructions[loop] = .split(loop + 1, instructions.count)
            }
        }
    }
}
