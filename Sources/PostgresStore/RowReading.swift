import GraphCore

/// Where each property of each entity is in the rows of a hierarchy's table, as
/// ``PostgresStore/selectList(root:)`` (and ``PostgresStore/selectListWithToMany(root:)``) lays
/// them out: worked out once per table, not for every row read.
struct RowReading {
    /// Where one property's value comes from.
    enum Cell {
        /// No column: the value is nil.
        case absent
        /// An attribute's column.
        case attribute(at: Int, type: AttributeType, key: String)
        /// A to-one relationship: the target's reference, and its entity (a column of its own).
        case toOne(at: Int, entityAt: Int, key: String)
        /// A to-many relationship from the row's cells: its targets, their entities in the next cell.
        case toMany(at: Int, key: String)
        /// A to-many relationship read afterwards from its join table (empty until then).
        case toManyLater
    }

    /// By entity name: the entity, and where each of its properties is (in the entity's order).
    let entities: [String: (entity: EntityDescription, cells: [Cell])]

    /// The reading of rows of `root`'s table; `toMany` gives, by join table name, the cell of
    /// each to-many relationship's targets when the rows hold them.
    init(model: ObjectModel, layout: TableLayout, root: String, toMany: [String: Int]?) {
        let columns = layout.columns[root] ?? []
        var position: [String: Int] = [:]
        var entityPosition: [String: Int] = [:]
        for (index, column) in columns.enumerated() { position[column.name] = 3 + index }
        var next = 3 + columns.count
        for column in columns where column.destinationRoot != nil {
            entityPosition[column.name] = next
            next += 1
        }
        var entities: [String: (entity: EntityDescription, cells: [Cell])] = [:]
        for entity in model.entities {
            var cells: [Cell] = []
            cells.reserveCapacity(entity.properties.count)
            for property in entity.properties {
                switch property {
                case .attribute(let attribute):
                    guard let at = position[attribute.name] else { cells.append(.absent); continue }
                    cells.append(.attribute(at: at, type: attribute.type, key: attribute.name))
                case .relationship(let relationship):
                    if relationship.isToMany {
                        guard let toMany, let table = layout.joinTable(of: relationship.name, in: entity), let at = toMany[table.name] else {
                            cells.append(.toManyLater)
                            continue
                        }
                        cells.append(.toMany(at: at, key: relationship.name))
                        continue
                    }
                    guard let at = position[relationship.name], let entityAt = entityPosition[relationship.name] else {
                        cells.append(.absent)
                        continue
                    }
                    cells.append(.toOne(at: at, entityAt: entityAt, key: relationship.name))
                }
            }
            entities[entity.name] = (entity, cells)
        }
        self.entities = entities
    }
}
