/// An index an entity asks for (Core Data's `fetchIndex`): a name and its elements, in order.
///
/// The model keeps it as data; stores may build it (see `docs/MODEL.md`).
public struct FetchIndexDescription: Sendable, Hashable {
    /// One part of an index: a property (or an expression) and how it is ordered.
    public struct Element: Sendable, Hashable {
        /// What an index element covers.
        public enum Target: Sendable, Hashable {
            /// A property of the entity, by name.
            case property(String)
            /// An expression, as Core Data writes it (kept as text).
            case expression(String)
        }

        /// The kind of index an element asks for.
        public enum Kind: String, Sendable, Hashable, CaseIterable {
            /// An ordered (B-tree) index, Core Data's `Binary`.
            case binary
            /// A spatial index, Core Data's `RTree`.
            case rTree
        }

        /// What the element covers.
        public var target: Target
        /// The kind of index.
        public var kind: Kind
        /// Whether the element is in ascending order (false: descending).
        public var ascending: Bool
        /// Whether the index keeps a string attribute's values case-folded, for `==[c]` and
        /// `BEGINSWITH[c]` (with ``diacriticInsensitive``: `[cd]`). Not Core Data's: our
        /// model file's `caseInsensitive`.
        public var caseInsensitive: Bool
        /// Whether the index keeps a string attribute's values with diacritics removed, for
        /// `[d]` (with ``caseInsensitive``: `[cd]`). Our model file's `diacriticInsensitive`.
        public var diacriticInsensitive: Bool

        /// Describes an index element.
        public init(_ target: Target, kind: Kind = .binary, ascending: Bool = true,
                    caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) {
            self.target = target
            self.kind = kind
            self.ascending = ascending
            self.caseInsensitive = caseInsensitive
            self.diacriticInsensitive = diacriticInsensitive
        }
    }

    /// The index's name, unique in its entity.
    public var name: String
    /// The elements, most significant first.
    public var elements: [Element]

    /// Describes an index.
    public init(name: String, elements: [Element]) {
        self.name = name
        self.elements = elements
    }
}
