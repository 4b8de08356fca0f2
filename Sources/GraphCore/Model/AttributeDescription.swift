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
    /// The name this attribute had in an earlier version of the model, when it was renamed
    /// (Core Data's renaming identifier): migration carries the old attribute's values over.
    /// It does not change the entity's version hash.
    public var renamingIdentifier: String?

    /// Describes an attribute.
    ///
    /// - Parameters:
    ///   - name: The attribute's name.
    ///   - type: The type of its values.
    ///   - isOptional: Whether it may be nil when saved (false by default).
    ///   - defaultValue: The value a new object starts with; must fit `type`
    ///     (``ObjectModel/init(entities:)`` checks it).
    ///   - renamingIdentifier: The attribute's name in the earlier model version it was renamed from.
    public init(_ name: String, _ type: AttributeType, isOptional: Bool = false, defaultValue: Value? = nil,
                renamingIdentifier: String? = nil) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.renamingIdentifier = renamingIdentifier
    }
}
