/// A range of one element's keys: the keys before it (`below`) and after it (`above`), each a
/// prefix and a suffix of the order of keys.
struct KeyRange {
    let below: (IndexKey) -> Bool
    let above: (IndexKey) -> Bool
    /// The one key of the range, when it is a point (`==`): a walk can go straight to it.
    var point: IndexKey?
}

/// A range of an index's entries by their compound keys (the first element's key and the
/// others'): the entries before it (`below`) and after it (`above`), a prefix and a suffix of
/// the index's order.
struct EntryRange {
    let below: (IndexKey, [IndexKey]) -> Bool
    let above: (IndexKey, [IndexKey]) -> Bool
    /// When the range is every entry whose first element's key is this one (whatever the
    /// others'): a walk can go straight down to it, comparing keys without the closures.
    private(set) var firstKey: IndexKey?

    init(below: @escaping (IndexKey, [IndexKey]) -> Bool, above: @escaping (IndexKey, [IndexKey]) -> Bool) {
        self.below = below
        self.above = above
    }

    /// The entries whose first elements equal `prefix`, one key each, and whose next element
    /// (the one after the prefix) is in `element`; every entry of the prefix without one.
    init(prefix: [IndexKey], element: KeyRange?) {
        guard !prefix.isEmpty else {
            firstKey = element?.point
            let below = element?.below ?? { _ in false }
            let above = element?.above ?? { _ in false }
            self.below = { first, _ in below(first) }
            self.above = { first, _ in above(first) }
            return
        }
        let count = prefix.count
        /// The order of an entry's first `count` elements against the prefix.
        func compare(_ first: IndexKey, _ rest: [IndexKey]) -> Int {
            let byFirst = IndexKey.order(first, prefix[0])
            if byFirst != 0 { return byFirst }
            for position in 1..<count {
                let byElement = IndexKey.order(position - 1 < rest.count ? rest[position - 1] : .null, prefix[position])
                if byElement != 0 { return byElement }
            }
            return 0
        }
        func next(_ rest: [IndexKey]) -> IndexKey { count - 1 < rest.count ? rest[count - 1] : .null }
        guard let element else {
            if count == 1 { firstKey = prefix[0] }
            below = { compare($0, $1) < 0 }
            above = { compare($0, $1) > 0 }
            return
        }
        below = { first, rest in
            let c = compare(first, rest)
            return c < 0 || (c == 0 && element.below(next(rest)))
        }
        above = { first, rest in
            let c = compare(first, rest)
            return c > 0 || (c == 0 && element.above(next(rest)))
        }
    }

}
