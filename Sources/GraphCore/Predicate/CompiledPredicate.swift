import Foundation

/// A predicate compiled against an entity: key paths resolved to property indexes,
/// constants folded and prepared (``ValueTest``), variables given slots. Evaluating it
/// (``PredicateEvaluator``) does no string lookups.
struct CompiledPredicate {
    let root: PredicateNode
    /// How many subquery variables need a slot while evaluating.
    let slotCount: Int
    /// Whether a key path leaves the evaluated object (follows a relationship).
    let followsRelationships: Bool
}

indirect enum PredicateNode {
    case constant(Bool)
    case and([PredicateNode])
    case or([PredicateNode])
    case not(PredicateNode)
    /// A single value against a prepared constant (most comparisons).
    case test(Operand, ValueTest)
    /// Anything else.
    case compare(CompiledComparison)
}

/// The right side of a comparison, prepared as far as it is constant.
enum RightSide {
    case constant(ValueTest)
    case list(ListTest)
    case operand(Operand)
}

struct CompiledComparison {
    let left: Operand
    let modifier: Comparison.Modifier
    let op: Comparison.Operator
    let right: RightSide
    let options: Comparison.Options
}

/// Where a key path starts.
indirect enum PathBase {
    /// The evaluated object (or, inside a subquery, the element).
    case record
    /// An object bound to a subquery variable's slot.
    case slot(Int)
    /// The object a single-valued operand gives: `songs[FIRST].title` starts at `songs[FIRST]`.
    case operand(Operand)

    /// Whether the path starts at the evaluated object.
    var isRecord: Bool { if case .record = self { true } else { false } }
}

/// A compiled expression.
indirect enum Operand {
    case constant(Value)
    /// `{a, b}` with non-constant elements.
    case list([Operand])
    /// `SELF`: the evaluated object's ID.
    case evaluatedObject
    /// A subquery variable's current element.
    case slot(Int)
    /// A property of the evaluated object itself (an attribute or a to-one relationship).
    case attribute(Int)
    /// Property indexes to follow from `base`; the last one is read. `many`: a to-many
    /// relationship is crossed or read, so the path yields a collection.
    case path(PathBase, [Int], many: Bool)
    /// A function of a collection.
    case aggregate(AggregateFunction, Operand)
    /// The elements of a collection of objects for which a predicate holds (the element is
    /// bound to the slot and is the record the predicate sees).
    case subquery(Operand, slot: Int, PredicateNode)
    /// A built-in function of the operands' values; `subject` names it in errors.
    case function(BuiltinFunction, [Operand], subject: String)
    /// The first operand where the predicate holds, else the second.
    case ternary(PredicateNode, Operand, Operand)
    /// A conversion to `NSNumber`, `NSDate` or `NSString`.
    case cast(Operand, String, subject: String)
    /// An element of a collection, or its size.
    case index(Operand, IndexOperand)
    /// The values of a collection (each once when distinct): `@unionOfObjects`, `@distinctUnionOfObjects`, ….
    case union(AggregateFunction, Operand)

    /// Whether the operand yields a collection (iterated) rather than one value.
    var isCollection: Bool {
        switch self {
        case .list, .subquery, .union: return true
        case .function(.mode, _, _): return true
        case .path(_, _, let many): return many
        case .constant(.objects): return true
        default: return false
        }
    }
}

/// A compiled `[FIRST]`, `[LAST]`, `[SIZE]` or `[n]`.
indirect enum IndexOperand {
    case first
    case last
    case size
    case position(Operand)
}
