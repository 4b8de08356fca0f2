/// Runs a ``RegexProgram`` on a text as a Thompson NFA simulation (the Pike VM without
/// captures): every thread advances one scalar at a time, at most one thread per
/// instruction, so a match costs at most the program's size times the text's length in
/// scalars, whatever the pattern (`(a+)+$` included).
struct RegexMatcher {
    let program: RegexProgram

    /// Whether the whole of `text` matches; nil when `shouldStop` (asked every so many
    /// scalars on long texts) said to stop first.
    func matches(_ text: String, shouldStop: (() -> Bool)? = nil) -> Bool? {
        let scalars = Array(text.unicodeScalars)
        let instructions = program.instructions
        let size = instructions.count
        var current = ThreadList(capacity: size)
        var next = ThreadList(capacity: size)
        var stack: [Int] = []
        var matched = false
        let checkInterval = Swift.max(1, (1 << 16) / Swift.max(1, size))

        func add(_ list: inout ThreadList, _ start: Int, at position: Int) {
            stack.append(start)
            while let pc = stack.popLast() {
                guard list.insert(pc) else { continue }
                switch instructions[pc] {
                case .jump(let target): stack.append(target)
                case .split(let first, let second): stack.append(second); stack.append(first)
                case .assert(let assertion): if Self.holds(assertion, at: position, in: scalars) { stack.append(pc + 1) }
                case .match: if position == scalars.count { matched = true }
                case .scalar, .foldedScalar, .set: break
                }
            }
        }

        add(&current, 0, at: 0)
        for position in 0..<scalars.count {
            if current.isEmpty { return false }
            if position % checkInterval == checkInterval - 1, let shouldStop, shouldStop() { return nil }
            let scalar = scalars[position]
            var folded: UInt32?
            next.removeAll()
            for i in 0..<current.count {
                let pc = current[i]
                let advances: Bool
                switch instructions[pc] {
                case .scalar(let expected):
                    advances = expected == scalar
                case .foldedScalar(let expected):
                    if folded == nil { folded = CaseFolding.fold(scalar) }
                    advances = folded == expected
                case .set(let index):
                    advances = program.classes[index].contains(scalar)
                default:
                    advances = false
                }
                if advances { add(&next, pc + 1, at: position + 1) }
            }
            swap(&current, &next)
        }
        return matched
    }

    static func holds(_ assertion: RegexAssertion, at position: Int, in scalars: [Unicode.Scalar]) -> Bool {
        let count = scalars.count
        switch assertion {
        case .startOfText:
            return position == 0
        case .endOfText:
            return position == count
        case .endOfTextOrFinalLineTerminator:
            if position == count { return true }
            if position == count - 1 { return ScalarProperty.isLineTerminator(scalars[position].value) }
            return position == count - 2 && scalars[position] == "\r" && scalars[position + 1] == "\n"
        case .startOfLine:
            if position == 0 { return true }
            if position == count { return false }
            let previous = scalars[position - 1]
            return ScalarProperty.isLineTerminator(previous.value) && !(previous == "\r" && scalars[position] == "\n")
        case .endOfLine:
            if position == count { return true }
            let following = scalars[position]
            guard ScalarProperty.isLineTerminator(following.value) else { return false }
            return !(following == "\n" && position > 0 && scalars[position - 1] == "\r")
        case .wordBoundary, .notWordBoundary:
            let before = position > 0 && ScalarProperty.word.contains(scalars[position - 1])
            let after = position < count && ScalarProperty.word.contains(scalars[position])
            return (before != after) == (assertion == .wordBoundary)
        }
    }
}

/// A set of instruction indexes in insertion order, cleared in constant time (a sparse set).
struct ThreadList {
    private var dense: [Int]
    private var sparse: [Int]
    private(set) var count = 0

    init(capacity: Int) {
        dense = [Int](repeating: 0, count: capacity)
        sparse = [Int](repeating: 0, count: capacity)
    }

    var isEmpty: Bool { count == 0 }

    subscript(i: Int) -> Int { dense[i] }

    /// Adds `pc`; false when it was there already.
    @inline(__always)
    mutating func insert(_ pc: Int) -> Bool {
        let slot = sparse[pc]
        if slot < count && dense[slot] == pc { return false }
        sparse[pc] = count
        dense[count] = pc
        count += 1
        return true
    }

    mutating func removeAll() { count = 0 }
}
