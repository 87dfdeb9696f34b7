/// A relationship from one entity to another, declared once with its
/// inverse, like `NSRelationshipDescription`.
///
/// Both ends are declared, each on its own entity, and name each other
/// as ``inverse``; ``ObjectModel/validate()`` checks that they agree. How a
/// relationship is stored follows from the two ends (``RelationshipStorage``):
/// a to-one whose inverse is to-many is a column on the to-one side, a
/// to-many on both sides is a join table, and the delete rule becomes the
/// foreign key's `ON DELETE` action, so that SQLite enforces it in the same
/// transaction as the delete.
///
/// ```swift
/// RelationshipDescription("wears", to: "Wear", inverse: "bowTie", toMany: true, deleteRule: .cascade)
/// ```
public struct RelationshipDescription: Sendable, Equatable {
    /// What deleting an object does to the objects at the other end, as
    /// Core Data's delete rules say.
    public enum DeleteRule: String, Sendable, CaseIterable {
        /// The objects at the other end lose the link (a to-one becomes
        /// nil); they stay.
        case nullify
        /// The objects at the other end are deleted too.
        case cascade
        /// The delete is refused while the other end holds any object
        /// (NSValidationRelationshipDeniedDeleteError 1600).
        case deny
    }

    public var name: String
    /// The entity at the other end.
    public var destination: String
    /// The relationship at the other end that leads back here.
    public var inverse: String
    public var isToMany: Bool
    /// What deleting an object of this entity does to the objects this
    /// relationship leads to.
    public var deleteRule: DeleteRule
    /// The fewest objects the relationship may lead to: 1 makes a to-one
    /// required (1580 when missing).
    public var minCount: Int
    /// The most objects it may lead to; nil for no limit (1590 above it).
    public var maxCount: Int?
    /// The property-list key an import reads it from, for a to-many whose
    /// destination has a ``EntityDescription/nameAttribute``: an
    /// `<array>` of names (`tags`). Nil when imports do not read it.
    public var importKey: String?

    public init(
        _ name: String, to destination: String, inverse: String, toMany: Bool = false,
        deleteRule: DeleteRule = .nullify, minCount: Int = 0, maxCount: Int? = nil, importKey: String? = nil
    ) {
        self.name = name
        self.destination = destination
        self.inverse = inverse
        self.isToMany = toMany
        self.deleteRule = deleteRule
        self.minCount = minCount
        self.maxCount = toMany ? maxCount : 1
        self.importKey = importKey
    }

    /// A to-one the object cannot exist without.
    public var isOptional: Bool { minCount == 0 }
}
