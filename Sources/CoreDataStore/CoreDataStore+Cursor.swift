import Foundation

extension CoreDataStore {
    /// The objects of one entity and its sub-entities, one at a time, for
    /// a reader that asks for the next one (an import) rather than being
    /// called with each (``forEachObject(of:_:)``, the dump).
    ///
    ///     let cursor = try store.objects(of: "BowTie")
    ///     while let object = try cursor.next() { … }
    ///
    /// Table by table in `Z_PK` order, one row in memory at a time, as
    /// ``forEachObject(of:_:)`` reads them.
    /// - Throws: ``CoreDataError`` `.noSuchEntity` for a name the model
    ///   does not have, naming those it has.
    public func objects(of entity: String) throws(CoreDataError) -> ObjectCursor {
        guard model.entity(named: entity) != nil else {
            throw CoreDataError(
                .noSuchEntity,
                "no entity \"\(entity)\"; the store has " + model.entities.map(\.name).joined(separator: ", "),
                file: displayName)
        }
        let selected = Set(model.entityAndDescendants(entity).map(\.name))
        var tables: [String] = []
        for candidate in model.entities where selected.contains(candidate.name) {
            if let table = table(of: candidate.name), !tables.contains(table) { tables.append(table) }
        }
        return ObjectCursor(store: self, tables: tables, selected: selected)
    }

    /// What ``objects(of:)`` returns: a statement stepped on demand.
    public final class ObjectCursor {
        private let store: CoreDataStore
        private var tables: ArraySlice<String>
        private let selected: Set<String>
        private let relationships: RelationshipReader
        private var table = ""
        private var statement: SQLiteReader.Statement?
        private var columnIndex: [String: Int] = [:]
        private var pkColumn = 0
        private var entityColumn = 0
        /// By `Z_ENT`: the entity and its plan, or nil when not selected.
        private var plans: [Int: (entity: CoreDataModel.Entity, plan: EntityPlan)?] = [:]

        init(store: CoreDataStore, tables: [String], selected: Set<String>) {
            self.store = store
            self.tables = tables[...]
            self.selected = selected
            relationships = RelationshipReader(store: store)
        }

        /// The next object, or nil after the last one.
        /// - Throws: ``CoreDataError`` for a damaged page or a value that
        ///   cannot be decoded, located by table, row and column.
        public func next() throws(CoreDataError) -> CoreDataObject? {
            while true {
                if statement == nil {
                    guard let next = tables.popFirst() else { return nil }
                    try open(next)
                }
                guard let statement else { return nil }
                guard try statement.step() else {
                    self.statement = nil
                    continue
                }
                let number = Int(statement.int64(entityColumn))
                if plans[number] == nil {
                    if let name = store.entityNames[number], selected.contains(name),
                        let entity = store.model.entity(named: name)
                    {
                        plans[number] = (
                            entity, EntityPlan(properties: store.properties(of: entity), columnIndex: columnIndex)
                        )
                    } else {
                        plans[number] = .some(nil)
                    }
                }
                guard let found = plans[number], let (entity, plan) = found else { continue }
                let pk = statement.int64(pkColumn)
                var values: [CoreDataValue] = []
                values.reserveCapacity(plan.slots.count)
                for slot in plan.slots {
                    switch slot {
                    case .missing:
                        values.append(.null)
                    case .attribute(let attribute, let column):
                        values.append(
                            try store.value(
                                of: attribute, statement.value(column),
                                at: "table \(table), row \(pk), column \(attribute.column)"))
                    case .relationship(let relationship):
                        values.append(
                            try relationships.value(
                                of: relationship, entity: entity, pk: pk, statement: statement,
                                columnIndex: columnIndex))
                    }
                }
                return CoreDataObject(entity: entity.name, pk: pk, values: values)
            }
        }

        private func open(_ table: String) throws(CoreDataError) {
            let statement = try store.reader.prepare("SELECT * FROM \(quotedIdentifier(table)) ORDER BY Z_PK")
            var columnIndex: [String: Int] = [:]
            for index in 0..<statement.columnCount {
                columnIndex[statement.columnName(index).uppercased()] = index
            }
            guard let pk = columnIndex["Z_PK"], let entity = columnIndex["Z_ENT"] else {
                throw CoreDataError(.damaged, "no Z_PK or Z_ENT column", file: store.displayName, at: "table \(table)")
            }
            self.table = table
            self.statement = statement
            self.columnIndex = columnIndex
            pkColumn = pk
            entityColumn = entity
            plans = [:]
        }
    }
}
