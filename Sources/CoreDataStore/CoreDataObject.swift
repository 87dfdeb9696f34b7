import Foundation

/// One value of an object, typed by the model.
public enum CoreDataValue: Sendable, Equatable {
    case null
    case integer(Int64)
    /// Double, Float and Decimal (which Core Data stores as a real).
    case real(Double)
    case string(String)
    case bool(Bool)
    /// Seconds since 2001-01-01 00:00:00 UTC.
    case date(Double)
    case uuid(UUID)
    case uri(String)
    /// Bytes: a Binary attribute, a UUID that is not 16 bytes, a
    /// transformable a custom transformer wrote.
    case binary(Data)
    /// A Binary attribute stored outside the database, in
    /// `.<Store>_SUPPORT/_EXTERNAL_DATA/<name>`: its bytes, or `nil`
    /// when that file is missing.
    case external(name: String, data: Data?)
    /// A transformable archived with NSKeyedArchiver, decoded; `raw` is
    /// the archive, for classes the decoder does not know.
    case archived(ArchivedValue, raw: Data)
    /// A to-one relationship.
    case object(ObjectReference)
    /// A to-many relationship (ordered ones in their order).
    case objects([ObjectReference])
}

/// An object by its entity and `Z_PK`: what an objectID names.
public struct ObjectReference: Sendable, Equatable {
    public var entity: String
    public var pk: Int64

    public init(entity: String, pk: Int64) {
        self.entity = entity
        self.pk = pk
    }
}

/// One object of a store: its entity, `Z_PK` and values, in the order of
/// the entity's ``CoreDataStore/ObjectLayout/properties``.
public struct CoreDataObject: Sendable {
    public var entity: String
    public var pk: Int64
    public var values: [CoreDataValue]
}
