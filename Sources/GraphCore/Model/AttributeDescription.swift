import Foundation

/// An attribute of an entity: a name, a type, whether it may be nil, and a default value.
///
/// ```swift
/// AttributeDescription("plays", .int64, defaultValue: 0)
/// AttributeDescription("notes", .string, isOptional: true)
/// ```
public struct AttributeDescription: Sendable, Hashable {
    public var name: String
    public var type: AttributeType
    /// Whether the attribute may be nil when the object is saved.
    public var isOptional: Bool
    /// The value a newly inserted object starts with; must match ``type``.
    public var defaultValue: Value?

    public init(_ name: String, _ type: AttributeType, isOptional: Bool = false, defaultValue: Value? = nil) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
    }
}
