/// The store's own key for an object, unique within the store.
///
/// Atomic stores hand out integers; other stores may use strings.
public enum ReferenceObject: Sendable, Hashable, CustomStringConvertible {
    /// An integer reference, as atomic stores hand out.
    case int(Int64)
    /// A string reference, for stores whose keys are not integers.
    case string(String)

    /// The reference as it appears in an ID's URI: the integer in decimal, or the string.
    public var description: String {
        switch self {
        case .int(let i): return String(i)
        case .string(let s): return s
        }
    }

    /// Reads a reference from its URI path component: decimal digits are an integer.
    init(pathComponent: String) {
        if let i = Int64(pathComponent), String(i) == pathComponent {
            self = .int(i)
        } else {
            self = .string(pathComponent)
        }
    }
}
