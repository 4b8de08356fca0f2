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

        /// Describes an index element.
        public init(_ target: Target, kind: Kind = .binary, ascending: Bool = true) {
            self.target = target
            self.kind = kind
            self.ascending = ascending
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
