import Foundation

/// An attribute of an entity: a name, a type, whether it may be nil, and a default value.
///
/// ```swift
/// AttributeDescription("plays", .int64, defaultValue: 0)
/// AttributeDescription("notes", .string, isOptional: true)
/// ```
public struct AttributeDescription: Sendable, Hashable {
    /// The attribute's name, unique among the entity's properties (inherited ones included).
    public var name: String
    /// The type of the attribute's values.
    public var type: AttributeType
    /// Whether the attribute may be nil when the object is saved.
    public var isOptional: Bool
    /// The value a newly inserted object starts with; must match ``type``.
    public var defaultValue: Value?

    /// Describes an attribute.
    ///
    /// - Parameters:
    ///   - name: The attribute's name.
    ///   - type: The type of its values.
    ///   - isOptional: Whether it may be nil when saved (false by default).
    ///   - defaultValue: The value a new object starts with; must fit `type`
    ///     (``ObjectModel/init(entities:)`` checks it).
    public init(_ name: String, _ type: AttributeType, isOptional: Bool = false, defaultValue: Value? = nil) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
    }
}
