import Foundation

/// The type of an attribute, as written in a model file (`"int64"`, `"string"`, ...).
public enum AttributeType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Integers of 16, 32 or 64 bits, held as ``Value/int(_:)``; a value outside the
    /// type's range is refused.
    case int16, int32, int64
    /// Binary floating point (`double`; `float` keeps `Float` precision), held as
    /// ``Value/double(_:)``, and base-10 `decimal`, held as ``Value/decimal(_:)``.
    case double, float, decimal
    /// Text, a Boolean, a point in time, bytes, a UUID and a URL, held as ``Value/string(_:)``,
    /// ``Value/bool(_:)``, ``Value/date(_:)``, ``Value/binary(_:)``, ``Value/uuid(_:)`` and
    /// ``Value/uri(_:)``.
    case string, bool, date, binary, uuid, uri

    /// The type's name in a model file (`"int64"`, `"string"`, ...).
    public var description: String { rawValue }

    /// Whether values of this type are integers stored as ``Value/int(_:)``.
    public var isInteger: Bool {
        switch self {
        case .int16, .int32, .int64: return true
        default: return false
        }
    }

    /// The inclusive range an integer attribute of this type accepts.
    var integerRange: ClosedRange<Int64>? {
        switch self {
        case .int16: return Int64(Int16.min)...Int64(Int16.max)
        case .int32: return Int64(Int32.min)...Int64(Int32.max)
        case .int64: return Int64.min...Int64.max
        default: return nil
        }
    }
}
