/// What happens to the objects on the other side of a relationship when its source is deleted.
public enum DeleteRule: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Remove the deleted object from the related objects' inverse relationship.
    case nullify
    /// Delete the related objects as well (their own rules apply in turn).
    case cascade
    /// Refuse to save the deletion while the relationship still holds objects.
    case deny
    /// Leave the related objects alone; their inverse keeps pointing at the deleted object.
    case noAction

    /// The rule's name in a model file (`"nullify"`, `"cascade"`, ...).
    public var description: String { rawValue }
}
