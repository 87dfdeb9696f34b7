import Foundation

/// A Core Data model as a store knows it: its entities, their
/// attributes and relationships, as Xcode's model editor names them.
public struct CoreDataModel: Sendable, Equatable {
    /// Where the model was learnt.
    public enum Source: String, Sendable {
        /// `Z_MODELCACHE`: the whole model, archived by Core Data itself.
        case modelCache = "modelcache"
        /// `Z_PRIMARYKEY` and the tables' columns: names upper-cased by
        /// SQLite's layout, types from the declared column types, no
        /// rules.
        case tables
    }

    public var source: Source
    /// In `Z_ENT` order (depth first, alphabetical at each level).
    public var entities: [Entity]
    /// `NSVersionIdentifiers` of the cached model.
    public var versionIdentifiers: [String]

    public init(source: Source, entities: [Entity], versionIdentifiers: [String] = []) {
        self.source = source
        self.entities = entities
        self.versionIdentifiers = versionIdentifiers
    }

    public func entity(named name: String) -> Entity? {
        entities.first { $0.name == name }
    }

    /// `name` and every entity below it.
    public func entityAndDescendants(_ name: String) -> [Entity] {
        var names: Set<String> = [name]
        var result: [Entity] = []
        for entity in entities {
            if entity.name == name || (entity.parent.map { names.contains($0) } ?? false) {
                names.insert(entity.name)
                result.append(entity)
            }
        }
        return result
    }

    /// The root of `name`'s hierarchy (the entity whose table holds it).
    public func root(of name: String) -> String {
        var current = name
        var seen: Set<String> = []
        while let parent = entity(named: current)?.parent, seen.insert(current).inserted {
            current = parent
        }
        return current
    }

    public struct Entity: Sendable, Equatable {
        public var name: String
        public var parent: String?
        public var isAbstract: Bool
        /// Every stored attribute, inherited ones included, by name.
        public var attributes: [Attribute]
        /// Every relationship, inherited ones included, by name.
        public var relationships: [Relationship]
        /// Names of the properties this entity declares itself (not
        /// inherited).
        public var ownPropertyNames: Set<String>

        public init(
            name: String, parent: String?, isAbstract: Bool, attributes: [Attribute], relationships: [Relationship],
            ownPropertyNames: Set<String>? = nil
        ) {
            self.name = name
            self.parent = parent
            self.isAbstract = isAbstract
            self.attributes = attributes
            self.relationships = relationships
            self.ownPropertyNames = ownPropertyNames ?? Set(attributes.map(\.name) + relationships.map(\.name))
        }

        public var ownAttributes: [Attribute] { attributes.filter { ownPropertyNames.contains($0.name) } }
        public var ownRelationships: [Relationship] { relationships.filter { ownPropertyNames.contains($0.name) } }
    }

    public struct Attribute: Sendable, Equatable {
        public var name: String
        public var type: AttributeType
        public var isOptional: Bool
        /// Not stored: Core Data keeps it in memory only.
        public var isTransient: Bool
        /// A derived attribute (computed by triggers), stored.
        public var isDerived: Bool
        /// The default value, as text (`0`, `NO`, `default cover`).
        public var defaultValue: String?
        public var minimum: String?
        public var maximum: String?
        /// "Allows External Storage": values may live in
        /// `.<Store>_SUPPORT/_EXTERNAL_DATA/`. `nil` when the model does
        /// not say (the table fallback).
        public var allowsExternalStorage: Bool?
        public var transformerName: String?
        /// The custom class (`NSAttributeValueClassName`) of a
        /// transformable.
        public var valueClassName: String?

        public init(
            name: String, type: AttributeType, isOptional: Bool = true, isTransient: Bool = false,
            isDerived: Bool = false, defaultValue: String? = nil, minimum: String? = nil, maximum: String? = nil,
            allowsExternalStorage: Bool? = nil, transformerName: String? = nil, valueClassName: String? = nil
        ) {
            self.name = name
            self.type = type
            self.isOptional = isOptional
            self.isTransient = isTransient
            self.isDerived = isDerived
            self.defaultValue = defaultValue
            self.minimum = minimum
            self.maximum = maximum
            self.allowsExternalStorage = allowsExternalStorage
            self.transformerName = transformerName
            self.valueClassName = valueClassName
        }

        /// `Z` and the upper-cased name: the attribute's column.
        public var column: String { "Z" + name.uppercased() }
    }

    public struct Relationship: Sendable, Equatable {
        public var name: String
        public var destination: String?
        public var isToMany: Bool
        public var inverse: String?
        public var deleteRule: DeleteRule
        public var isOrdered: Bool
        public var isOptional: Bool
        public var minCount: Int
        public var maxCount: Int

        public init(
            name: String, destination: String?, isToMany: Bool, inverse: String?, deleteRule: DeleteRule,
            isOrdered: Bool, isOptional: Bool = true, minCount: Int = 0, maxCount: Int = 0
        ) {
            self.name = name
            self.destination = destination
            self.isToMany = isToMany
            self.inverse = inverse
            self.deleteRule = deleteRule
            self.isOrdered = isOrdered
            self.isOptional = isOptional
            self.minCount = minCount
            self.maxCount = maxCount
        }

        public var column: String { "Z" + name.uppercased() }
    }

    /// `NSDeleteRule`, as Xcode names it.
    public enum DeleteRule: Int, Sendable {
        case noAction = 0, nullify = 1, cascade = 2, deny = 3

        public var name: String {
            switch self {
            case .noAction: "No Action"
            case .nullify: "Nullify"
            case .cascade: "Cascade"
            case .deny: "Deny"
            }
        }
    }

    /// `NSAttributeType`, by its code in an archived model.
    public enum AttributeType: Int, Sendable {
        case undefined = 0
        case integer16 = 100
        case integer32 = 200
        case integer64 = 300
        case decimal = 400
        case double = 500
        case float = 600
        case string = 700
        case boolean = 800
        case date = 900
        case binary = 1000
        case uuid = 1100
        case uri = 1200
        case transformable = 1800
        case objectID = 2000
        case composite = 2100

        /// The name Xcode's model editor shows: `Integer 32`, `Binary`...
        public var name: String {
            switch self {
            case .undefined: "Undefined"
            case .integer16: "Integer 16"
            case .integer32: "Integer 32"
            case .integer64: "Integer 64"
            case .decimal: "Decimal"
            case .double: "Double"
            case .float: "Float"
            case .string: "String"
            case .boolean: "Boolean"
            case .date: "Date"
            case .binary: "Binary"
            case .uuid: "UUID"
            case .uri: "URI"
            case .transformable: "Transformable"
            case .objectID: "Object ID"
            case .composite: "Composite"
            }
        }
    }
}
