/// Format strings parsed once, kept by format: a program that parses the same formats again
/// and again with new arguments (a server answering its clients' fetches) parses each format
/// once and binds the arguments of every later use into it (``PredicateTemplate``).
///
/// ``predicate(format:arguments:)`` gives exactly what ``Predicate/init(format:arguments:model:)``
/// gives, or throws what it throws:
///
/// ```swift
/// let predicates = PredicateCache(model: model)
/// let p = try predicates.predicate(format: "plays == %d", arguments: [.value(.int(42))])
/// ```
///
/// - A format is parsed as usual the first time; the second time, its template is made and
///   kept when it binds those arguments into the predicate the parse gives. A format seen
///   once (a client writing its values into the format) costs one lookup, never a second parse.
/// - A format whose structure depends on its arguments (`%K`, …) has no template and is
///   parsed each time.
/// - At most ``capacity`` formats of at most ``maximumFormatLength`` bytes are kept: past
///   the capacity, the formats seen once are dropped, and all of them if those were too few.
///
/// Thread-safe: one lock, held only for the lookup and the insert.
public final class PredicateCache: Sendable {
    /// What the cache knows of a format.
    private enum Entry: Sendable {
        /// Parsed once: a template is made if the format comes again.
        case seen
        case template(PredicateTemplate)
        /// Its structure depends on its arguments: parsed each time.
        case parsedEachTime
    }

    /// The longest format kept, in UTF-8 bytes.
    public static let maximumFormatLength = 2_048

    /// The model formats are parsed against (object IDs in `CAST`).
    public let model: ObjectModel?
    /// How many formats are kept at most.
    public let capacity: Int
    private let entries = Locked<[String: Entry]>([:])

    /// An empty cache for formats parsed against `model`, keeping at most `capacity` of them.
    public init(model: ObjectModel?, capacity: Int = 256) {
        self.model = model
        self.capacity = max(1, capacity)
    }

    /// The predicate of `format` with `arguments`, as ``Predicate/init(format:arguments:model:)``.
    ///
    /// - Throws: ``PredicateError`` naming the offset and what was expected there.
    public func predicate(format: String, arguments: [PredicateValue]) throws(PredicateError) -> Predicate {
        guard format.utf8.count <= Self.maximumFormatLength else {
            return try Predicate(format: format, arguments: arguments, model: model)
        }
        let entry = entries.withLock { $0[format] }
        switch entry {
        case .template(let template)?:
            if let bound = template.bind(arguments) { return bound }
            // An argument that does not fit: the parse throws the error it names.
            return try Predicate(format: format, arguments: arguments, model: model)
        case .parsedEachTime?:
            return try Predicate(format: format, arguments: arguments, model: model)
        case .seen?:
            let parsed = try Predicate(format: format, arguments: arguments, model: model)
            let kept: Entry = PredicateTemplate(format: format, model: model)
                .flatMap { $0.bind(arguments) == parsed ? Entry.template($0) : nil } ?? .parsedEachTime
            keep(kept, for: format)
            return parsed
        case nil:
            let parsed = try Predicate(format: format, arguments: arguments, model: model)
            keep(.seen, for: format)
            return parsed
        }
    }

    /// How many formats the cache holds (for tests and diagnostics).
    public var count: Int { entries.withLock { $0.count } }

    private func keep(_ entry: Entry, for format: String) {
        entries.withLock { entries in
            // Another thread may have got further with the same format meanwhile.
            if case .seen = entry, entries[format] != nil { return }
            if entries[format] == nil, entries.count >= capacity {
                entries = entries.filter { if case .seen = $0.value { false } else { true } }
                if entries.count >= capacity { entries.removeAll() }
            }
            entries[format] = entry
        }
    }
}
