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
    /// Whether the attribute is transient (Core Data's `transient`): it belongs to the model but
    /// not to the stored data. A transient attribute is not one of the entity's
    /// ``EntityDescription/properties``: stores never hold it, the wire never sends it, and
    /// a context holds no value for it; the entity lists it in
    /// ``EntityDescription/transientAttributes``. It does not change the version hash.
    public var isTransient: Bool = false
    /// The smallest value a saved object may hold: a number for numeric attributes, a
    /// ``Value/date(_:)`` for dates, and for `string` and `binary` attributes the fewest
    /// UTF-16 code units (`NSString`'s length, as Core Data counts) or bytes, as ``Value/int(_:)``.
    public var minValue: Value?
    /// The largest value a saved object may hold (read as ``minValue`` is).
    public var maxValue: Value?
    /// For a `string` attribute, a pattern every saved value must match as a whole, in the
    /// dialect of the predicate language's `MATCHES` (`docs/PREDICATES.md`).
    public var regularExpression: String?
    /// For a `binary` attribute imported from Xcode's `Transformable` type: the name of the
    /// value transformer the app uses to turn the bytes into an object. Kept, not applied.
    public var valueTransformerName: String?
    /// For an attribute imported from Xcode's `Transformable` type: the class the app decodes
    /// the bytes to. Kept, not applied.
    public var customClassName: String?
    /// For a derived attribute (Core Data's `derived`): the derivation expression, kept as
    /// text. GraphCore does not compute it: the attribute is stored like any other.
    public var derivationExpression: String?
    /// Core Data's version hash modifier: any change to it changes the entity's version hash.
    public var versionHashModifier: String?
    /// Free key-value pairs for the app (Core Data's `userInfo`).
    public var userInfo: [String: String] = [:]

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
