import Foundation
import GraphCore
import PostgresNIO

/// How a PostgreSQL store answers a fetch: its SQL, and what is left to GraphCore.
public struct PostgresFetchPlan: Sendable, Equatable, CustomStringConvertible {
    /// The `SELECT` sent (values are parameters, never in the text).
    public var sql: String
    /// Whether SQL answers the predicate alone; when false, GraphCore evaluates the whole
    /// predicate on the rows SQL narrowed down.
    public var predicateInSQL: Bool
    /// Whether PostgreSQL sorts, pages (and counts) the results.
    public var sortedAndPagedInSQL: Bool

    /// The plan as one line.
    public var description: String {
        "\(predicateInSQL ? "predicate in SQL" : "predicate narrowed in SQL, evaluated by GraphCore"); "
            + "\(sortedAndPagedInSQL ? "sorted and paged in SQL" : "sorted and paged by the context"): \(sql)"
    }
}

extension PostgresStore {
    /// How the store would answer `request` (the statement is not run).
    ///
    /// - Throws: `GraphError.unknownEntity`, or ``PostgresStoreError`` for a model the store cannot lay out.
    public func explain(_ request: FetchRequest) throws -> PostgresFetchPlan {
        try plan(for: request).description
    }

    struct Plan {
        var statement: SQLStatement
        var description: PostgresFetchPlan
        var root: String
        var idsOnly: Bool
        var counts: Bool
        /// Where the rows hold their to-many relationships (``readRows(_:root:toMany:)``), when they do.
        var toMany: [String: Int]?
        /// The column of the last commit the statement's snapshot holds, when it reads it.
        var commitColumn: Int?
    }

    /// The plan of `request`; with `readingCommit`, its rows also hold the number of the last
    /// commit their snapshot holds, and whole objects their to-many relationships (one statement
    /// answers a server's fetch). A plan made for a request of the same shape is bound to this
    /// request's values (``FetchPlanCache``).
    func plan(for request: FetchRequest, readingCommit: Bool = false) throws -> Plan {
        var shape: PredicateShape?
        var constants: [Value] = []
        if let predicate = request.predicate {
            let marked = PredicateShape.of(predicate, storeIdentifier: identifier)
            shape = marked.shape
            constants = marked.constants
        }
        let key = FetchPlanCache.Shape(request, predicate: shape, readingCommit: readingCommit)
        switch fetchPlans[key] {
        case .plan(let kept, let sources)?:
            if let binds = BindSource.binds(sources, constants: constants, request: request) {
                var plan = kept
                plan.statement = kept.statement.rebound(binds)
                return plan
            }
            return try makePlan(for: request, marked: shape, constants: constants, readingCommit: readingCommit)
        case .planAnew?:
            return try makePlan(for: request, marked: shape, constants: constants, readingCommit: readingCommit)
        case nil:
            var plan = try makePlan(for: request, marked: shape, constants: constants, readingCommit: readingCommit)
            guard let sources = plan.statement.sources, !sources.contains(.unknown) else {
                fetchPlans.keep(.planAnew, for: key)
                return plan
            }
            plan.statement.knownPreparedKey = plan.statement.preparedKey
            fetchPlans.keep(.plan(plan, sources), for: key)
            return plan
        }
    }

    /// The plan of `request` made anew, its predicate translated from its marked shape and constants.
    private func makePlan(for request: FetchRequest, marked: PredicateShape?, constants: [Value], readingCommit: Bool) throws -> Plan {
        guard let model else { throw GraphError.store("the store's coordinator is gone") }
        guard let entity = model.entity(named: request.entityName) else { throw GraphError.unknownEntity(request.entityName) }
        let layout = try layout
        let root = TableLayout.root(of: entity)
        var statement = SQLStatement.recordingSources()
        var conditions: [String] = []
        let kinds = layout.kinds(of: entity, includingSubentities: request.includesSubentities)
        if kinds.count != layout.kinds(of: root, includingSubentities: true).count {
            conditions.append("t.\"_entity\" = ANY(\(statement.parameter(kinds, from: .kinds(kinds))))")
        }
        var exact = true
        if let predicate = marked?.marked {
            var translator = PredicateTranslator(layout: layout, storeIdentifier: identifier, constants: constants)
            let condition = translator.condition(predicate, entity: entity, alias: "t", into: &statement)
            conditions.append("(\(condition.sql))")
            exact = condition.isExact
        }
        let order = exact ? orderBy(request.sortDescriptors, entity: entity) : nil
        let paged = order != nil
        let counts = request.resultType == .count && paged
        let idsOnly = request.resultType != .objects || request.returnsObjectsAsFaults
        var list = "t.\"_id\", t.\"_entity\""
        var toMany: [String: Int]?
        var commitColumn: Int?
        if counts {
            commitColumn = readingCommit ? 1 : nil
        } else if idsOnly {
            commitColumn = readingCommit ? 2 : nil
        } else if readingCommit {
            let selected = try selectListWithToMany(root: root)
            (list, toMany, commitColumn) = (selected.list, selected.toMany, selected.width)
        } else {
            list = try selectList(root: root.name)
        }
        if readingCommit, !counts { list += ", \(CommitHistory.latestExpression)" }
        var sql = "SELECT \(list) FROM \(TableLayout.quoted(root.name)) t"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        if let order, !order.isEmpty { sql += " ORDER BY " + order }
        if paged {
            if request.fetchLimit > 0 { sql += " LIMIT \(statement.parameter(Int64(request.fetchLimit), from: .limit))" }
            if request.fetchOffset > 0 { sql += " OFFSET \(statement.parameter(Int64(request.fetchOffset), from: .offset))" }
        }
        if counts { sql = "SELECT count(*)\(readingCommit ? ", " + CommitHistory.latestExpression : "") FROM (\(sql)) counted" }
        statement.text = sql
        return Plan(statement: statement,
                    description: PostgresFetchPlan(sql: sql, predicateInSQL: exact, sortedAndPagedInSQL: paged),
                    root: root.name, idsOnly: idsOnly, counts: counts, toMany: toMany, commitColumn: commitColumn)
    }

    /// The `ORDER BY` of sort descriptors PostgreSQL orders as GraphCore does (attributes of
    /// the entity, plain comparison; nil first when ascending), the ID last so that pages are
    /// stable; nil when one of them cannot be said in SQL.
    private func orderBy(_ descriptors: [GraphCore.SortDescriptor], entity: EntityDescription) -> String? {
        guard !descriptors.isEmpty else { return "" }
        var items: [String] = []
        for descriptor in descriptors {
            guard descriptor.comparison == .plain, case .attribute(let attribute)? = entity.property(named: descriptor.keyPath),
                  !attribute.isTransient else { return nil }
            let column = "t.\(TableLayout.quoted(attribute.name))"
            let expression: String
            switch attribute.type {
            case .int16, .int32, .int64, .bool, .date, .uuid, .double, .float: expression = column
            case .string: expression = TableLayout.stringKey(column)
            case .decimal, .binary, .uri: return nil
            }
            items.append(expression + (descriptor.ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST"))
        }
        items.append("t.\"_id\"")
        return items.joined(separator: ", ")
    }

    func runFetch(_ request: FetchRequest) throws -> StoreFetchResult {
        try runFetch(request, readingCommit: false).result
    }

    /// Runs `request`'s plan (prepared); with `readingCommit`, also the number of the last
    /// commit the results hold, read in the same statement when it returned rows.
    func runFetch(_ request: FetchRequest, readingCommit: Bool) throws -> (result: StoreFetchResult, through: Int64?) {
        guard let model else { throw GraphError.store("the store's coordinator is gone") }
        var plan = try plan(for: request, readingCommit: readingCommit)
        let exact = plan.description.predicateInSQL
        if !exact, plan.idsOnly {
            // GraphCore judges the rows: it needs their values.
            var full = request
            full.resultType = .objects
            full.returnsObjectsAsFaults = false
            plan = try self.plan(for: full, readingCommit: readingCommit)
            plan.idsOnly = true
        }
        // Where the rows are the result (SQL judges, sorts and pages), they are read only up to
        // the request's limit of bytes.
        let rowsAreTheResult = exact && !plan.counts && plan.description.sortedAndPagedInSQL
        let rows: [PostgresRow]
        do {
            rows = try session.runPrepared(plan.statement, limit: rowsAreTheResult ? request.resultBytesLimit : nil)
        } catch {
            throw error.ofFetch(of: request.entityName)
        }
        var through = try commit(readBy: plan, in: rows)
        if through == nil, plan.commitColumn != nil {
            // No row: the history's last commit, read after the statement.
            through = try CommitHistory.latest(session: session)
        }
        if exact { return (try exactResult(of: plan, rows: rows), through) }
        var snapshots = try readRows(rows, root: plan.root, toMany: plan.toMany)
        if let predicate = request.predicate {
            var judged = request
            judged.predicate = predicate
            var loaded: [ObjectID: ObjectSnapshot?] = [:]
            let fetch = try SnapshotFetch(judged, model: model) { [unowned self] id in
                if let known = loaded[id] { return known }
                let snapshot = try self.snapshot(for: id)
                loaded[id] = snapshot
                return snapshot
            }
            snapshots = try snapshots.filter { try fetch.matches($0) }
            // The objects judging read came later: the last commit after them bounds them all.
            if readingCommit { through = try CommitHistory.latest(session: session) }
        }
        let sorted = plan.description.sortedAndPagedInSQL
        if plan.idsOnly { return (StoreFetchResult(faults: snapshots.map(\.objectID), isSortedAndPaged: sorted), through) }
        return (StoreFetchResult(snapshots: snapshots, isSortedAndPaged: sorted), through)
    }

    /// The number of the last commit `plan`'s statement read, from its first row; nil when it
    /// does not read it or returned no row.
    func commit(readBy plan: Plan, in rows: [PostgresRow]) throws -> Int64? {
        guard let column = plan.commitColumn, let row = rows.first else { return nil }
        return try ColumnReader.integer(row.makeRandomAccess()[column], what: "max(seq)") ?? 0
    }

    /// The result of a plan whose predicate SQL answers alone (``PostgresFetchPlan/predicateInSQL``),
    /// from its statement's rows: a count, IDs or objects.
    func exactResult(of plan: Plan, rows: [PostgresRow]) throws -> StoreFetchResult {
        guard let model else { throw GraphError.store("the store's coordinator is gone") }
        if plan.counts {
            let count = try rows.first.flatMap { try ColumnReader.integer($0.makeRandomAccess()[0], what: "count") } ?? 0
            return StoreFetchResult(count: Int(clamping: count), isSortedAndPaged: true)
        }
        let sorted = plan.description.sortedAndPagedInSQL
        guard plan.idsOnly else {
            return StoreFetchResult(snapshots: try readRows(rows, root: plan.root, toMany: plan.toMany), isSortedAndPaged: sorted)
        }
        let ids: [ObjectID] = try rows.map { row in
            let cells = row.makeRandomAccess()
            guard let reference = try ColumnReader.integer(cells[0], what: "_id"), let name = try ColumnReader.text(cells[1], what: "_entity"),
                  let entity = model.entity(named: name) else {
                throw PostgresStoreError.unreadableValue(entity: plan.root, key: "_entity", reason: "a row names no entity of the model")
            }
            return newObjectID(for: entity, referenceObject: .int(reference))
        }
        return StoreFetchResult(faults: ids, isSortedAndPaged: sorted)
    }
}
