import GraphCore

/// How a model's entities map onto tables: one table per entity hierarchy (single-table
/// inheritance, as Core Data's SQLite store does), named after the root entity.
///
/// - Each table has `_id` (the object's reference, from the sequence `_graph_references`),
///   `_entity` (the object's entity name) and `_version` (optimistic locking), then one column
///   per attribute and per to-one relationship of every entity of the hierarchy.
/// - A to-one relationship is a `bigint` column, a foreign key to the destination's table.
/// - A to-many relationship is a join table `"<Entity>.<relationship>"` of
///   (`owner`, `position`, `target`), in order for ordered relationships.
///
/// See docs/POSTGRESQL.md for the layout and why.
struct TableLayout {
    /// The PostgreSQL limit on an identifier's length, in bytes.
    static let maximumIdentifierBytes = 63
    static let metadataTable = "_graph_store"
    static let entityTable = "_graph_entities"
    static let referenceSequence = "_graph_references"

    /// A column of a hierarchy's table.
    struct Column {
        let name: String
        /// The attribute's type, or nil for a to-one relationship (a `bigint` reference).
        let type: AttributeType?
        /// The root entity of a to-one relationship's destination.
        let destinationRoot: String?
    }

    /// A to-many relationship's join table.
    struct JoinTable {
        let name: String
        let ownerRoot: String
        let destinationRoot: String
    }

    /// A unique index made from an entity's uniqueness constraint, over the rows of the entity
    /// and its sub-entities.
    struct UniqueIndex {
        let name: String
        let entity: String
        let root: String
        let attributes: [String]
        let kinds: [String]
    }

    let model: ObjectModel
    /// The unique indexes, named `_graph_unique_<n>` in the model's order.
    let uniqueIndexes: [UniqueIndex]
    /// Root entity name → its table's columns after the three fixed ones, in order.
    let columns: [String: [Column]]
    /// "Entity.relationship" (the declaring entity) → the join table.
    private let joinTables: [String: JoinTable]

    /// Every table of the objects: one per root entity and one per to-many relationship.
    var objectTables: [String] {
        Array(columns.keys).sorted() + Set(joinTables.values.map(\.name)).sorted()
    }

    /// Works out the layout of a model.
    ///
    /// - Throws: ``PostgresStoreError/unsupportedName(_:reason:)`` for a name longer than
    ///   PostgreSQL allows, beginning with `_` (the store's own names), or two entities of one
    ///   hierarchy giving one property name different types.
    init(model: ObjectModel) throws(PostgresStoreError) {
        self.model = model
        var columns: [String: [Column]] = [:]
        var joins: [String: JoinTable] = [:]
        for entity in model.entities {
            try Self.check(entity.name)
            let root = Self.root(of: entity).name
            var list = columns[root] ?? []
            for attribute in entity.ownAttributes where !attribute.isTransient {
                try Self.check(attribute.name)
                try Self.add(Column(name: attribute.name, type: attribute.type, destinationRoot: nil), to: &list, entity: entity)
            }
            for relationship in entity.ownRelationships {
                try Self.check(relationship.name)
                guard let destination = model.entity(named: relationship.destination) else { continue }
                let destinationRoot = Self.root(of: destination).name
                if relationship.isToMany {
                    let name = entity.name + "." + relationship.name
                    try Self.check(name)
                    joins[name] = JoinTable(name: name, ownerRoot: root, destinationRoot: destinationRoot)
                } else {
                    try Self.add(Column(name: relationship.name, type: nil, destinationRoot: destinationRoot), to: &list, entity: entity)
                }
            }
            columns[root] = list
        }
        self.columns = columns
        self.joinTables = joins
        var unique: [UniqueIndex] = []
        for entity in model.entities {
            let root = Self.root(of: entity).name
            let names = Set((columns[root] ?? []).map(\.name))
            for constraint in entity.uniquenessConstraints where !constraint.isEmpty && constraint.allSatisfy(names.contains) {
                unique.append(UniqueIndex(name: "_graph_unique_\(unique.count + 1)", entity: entity.name, root: root, attributes: constraint,
                                          kinds: model.entities.filter { $0.isKind(of: entity) }.map(\.name)))
            }
        }
        uniqueIndexes = unique
    }

    private static func add(_ column: Column, to list: inout [Column], entity: EntityDescription) throws(PostgresStoreError) {
        if let existing = list.first(where: { $0.name == column.name }) {
            guard existing.type == column.type, existing.destinationRoot == column.destinationRoot else {
                throw .unsupportedName("\(entity.name).\(column.name)",
                                       reason: "another entity of the same hierarchy has a property of this name with another type")
            }
            return
        }
        list.append(column)
    }

    private static func check(_ name: String) throws(PostgresStoreError) {
        if name.utf8.count > maximumIdentifierBytes {
            throw .unsupportedName(name, reason: "longer than PostgreSQL's \(maximumIdentifierBytes) bytes")
        }
        if name.hasPrefix("_") { throw .unsupportedName(name, reason: "names beginning with _ are the store's own") }
        if name.utf8.contains(0) { throw .unsupportedName(name, reason: "it contains a NUL character") }
    }

    /// The root of an entity's hierarchy.
    static func root(of entity: EntityDescription) -> EntityDescription {
        var current = entity
        while let parent = current.parent { current = parent }
        return current
    }

    /// The quoted name of the table holding `entity`'s objects.
    func table(of entity: EntityDescription) -> String { Self.quoted(Self.root(of: entity).name) }

    /// The names of `entity` and every entity below it (the `_entity` values a fetch of it includes).
    func kinds(of entity: EntityDescription, includingSubentities: Bool) -> [String] {
        guard includingSubentities else { return [entity.name] }
        return model.entities.filter { $0.isKind(of: entity) }.map(\.name)
    }

    /// The join table of a to-many relationship of `entity` (declared by it or an ancestor).
    func joinTable(of relationship: String, in entity: EntityDescription) -> JoinTable? {
        var current: EntityDescription? = entity
        while let owner = current {
            if let table = joinTables[owner.name + "." + relationship] { return table }
            current = owner.parent
        }
        return nil
    }

    /// Every join table, in a stable order.
    var allJoinTables: [JoinTable] { joinTables.values.sorted { $0.name < $1.name } }

    /// The roots of the model's hierarchies, in the model's order.
    var roots: [String] {
        var seen: Set<String> = []
        return model.entities.map { Self.root(of: $0).name }.filter { seen.insert($0).inserted }
    }

    /// An identifier in double quotes (a quote inside doubled), safe to put in SQL text.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The SQL type of an attribute's column. Dates are seconds since 2001-01-01 UTC as a
    /// `double precision` (exactly the value GraphCore holds, as Core Data's SQLite store keeps
    /// them); `float` attributes are `double precision` too (they hold a `Float`'s value exactly).
    static func sqlType(_ type: AttributeType?) -> String {
        guard let type else { return "bigint" }
        switch type {
        case .int16: return "smallint"
        case .int32: return "integer"
        case .int64: return "bigint"
        case .double, .float, .date: return "double precision"
        case .decimal: return "numeric"
        case .string, .uri: return "text"
        case .bool: return "boolean"
        case .binary: return "bytea"
        case .uuid: return "uuid"
        }
    }

    /// The expression a string column is compared and sorted by: its NFC form in code point
    /// order (Swift's string equality and order), which an index of the same expression serves.
    static func stringKey(_ column: String) -> String { "(normalize(\(column), NFC) COLLATE \"C\")" }

    /// Indexes for the entities' fetch indexes (`_graph_index_<n>` in the model's order): those
    /// whose elements are all attributes or to-one relationships of the entity, B-tree ones. A
    /// to-one relationship is its foreign key column; an index of that column alone is the one
    /// every foreign key has already (`CREATE INDEX ON <table> (<column>)`), not made twice.
    var fetchIndexStatements: [String] {
        var statements: [String] = []
        for entity in model.entities {
            let root = Self.root(of: entity).name
            let columns = self.columns[root] ?? []
            for index in entity.fetchIndexes {
                var items: [String] = []
                for element in index.elements {
                    guard element.kind == .binary, case .property(let name) = element.target,
                          let column = columns.first(where: { $0.name == name }) else { items = []; break }
                    let quoted = Self.quoted(name)
                    items.append((column.type == .string ? Self.stringKey(quoted) : quoted) + (element.ascending ? "" : " DESC"))
                }
                guard !items.isEmpty else { continue }
                if index.elements.count == 1, case .property(let name) = index.elements[0].target,
                   columns.first(where: { $0.name == name })?.destinationRoot != nil { continue }
                statements.append("CREATE INDEX \(Self.quoted("_graph_index_\(statements.count + 1)")) ON \(Self.quoted(root)) (\(items.joined(separator: ", ")))")
            }
        }
        return statements
    }

    /// The statements that create the schema on an empty database.
    var creationStatements: [String] {
        var statements: [String] = [
            "CREATE TABLE \(Self.quoted(Self.metadataTable)) (key text PRIMARY KEY, value text NOT NULL)",
            "CREATE TABLE \(Self.quoted(Self.entityTable)) (entity text PRIMARY KEY, version_hash text NOT NULL)",
            "CREATE SEQUENCE \(Self.quoted(Self.referenceSequence)) AS bigint",
        ]
        var foreignKeys: [String] = []
        for root in roots {
            var parts = ["\"_id\" bigint PRIMARY KEY", "\"_entity\" text NOT NULL", "\"_version\" bigint NOT NULL"]
            for column in columns[root] ?? [] {
                parts.append(Self.quoted(column.name) + " " + Self.sqlType(column.type))
                if let destination = column.destinationRoot {
                    // Added once every table exists: a key may point to a table made later.
                    foreignKeys.append("""
                        ALTER TABLE \(Self.quoted(root)) ADD FOREIGN KEY (\(Self.quoted(column.name))) \
                        REFERENCES \(Self.quoted(destination)) ("_id") ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED
                        """)
                    foreignKeys.append("CREATE INDEX ON \(Self.quoted(root)) (\(Self.quoted(column.name)))")
                }
            }
            statements.append("CREATE TABLE \(Self.quoted(root)) (\(parts.joined(separator: ", ")))")
            statements.append("CREATE INDEX ON \(Self.quoted(root)) (\"_entity\")")
        }
        statements += foreignKeys
        statements += fetchIndexStatements
        for index in uniqueIndexes {
            let kinds = index.kinds.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }.joined(separator: ", ")
            statements.append("""
                CREATE UNIQUE INDEX \(Self.quoted(index.name)) ON \(Self.quoted(index.root)) \
                (\(index.attributes.map(Self.quoted).joined(separator: ", "))) WHERE "_entity" IN (\(kinds))
                """)
        }
        for join in allJoinTables {
            let name = Self.quoted(join.name)
            statements.append("""
                CREATE TABLE \(name) (owner bigint NOT NULL REFERENCES \(Self.quoted(join.ownerRoot)) ("_id") ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED, \
                position integer NOT NULL, \
                target bigint NOT NULL REFERENCES \(Self.quoted(join.destinationRoot)) ("_id") ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED, \
                PRIMARY KEY (owner, position))
                """)
            statements.append("CREATE INDEX ON \(name) (target)")
        }
        return statements
    }
}
