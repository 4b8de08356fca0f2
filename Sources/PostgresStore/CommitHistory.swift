import Foundation
import GraphCore
import PostgresNIO

/// One history row to write: one part of a save (``GraphCore/CommitPart``), with what
/// happened to each of its objects.
struct HistoryRow {
    var author: String?
    var objects: [CommittedObject]
    /// For each of `objects`, its previous values in ``PreviousValuesForm`` (nil: not recorded).
    var previous: [String?] = []
}

/// The history table `_graph_history`: one row per save, written in the save's transaction.
///
/// Numbers: the transaction takes the transaction-level advisory lock ``lockKey`` as its last
/// step before `COMMIT`, then numbers its rows `max(seq) + 1, …`. The lock is held until the
/// transaction ends, and PostgreSQL makes a commit visible before it releases the
/// transaction's locks, so the next saver reads the previous one's rows: numbers are given in
/// commit order, without gaps (a save that rolls back leaves none, as a sequence would), and
/// no reader can see commit n + 1 while commit n is not visible yet. Only the short end of a
/// save (the history rows and `COMMIT`) is serialized; the rows are written before, in parallel.
///
/// The rows are written by the function ``writeFunction``, which takes the lock, then reads
/// `max(seq)` (a `VOLATILE` function's statements take snapshots of their own, so it reads
/// after the lock is granted), inserts the rows and sends the notification; the call is sent
/// with the `COMMIT`, so that the lock is held for PostgreSQL's work and the WAL flush alone,
/// with no round trip to the server in between (it was three: lock, rows, `COMMIT`). Servers
/// that take the lock in a statement of its own number alike beside it: the lock is the same.
///
/// Each commit also sends `NOTIFY "_graph_commits"`, delivered to listeners when it commits:
/// its rows as a JSON array of `[seq, committed_at, author, entities, refs, kinds, previous]`
/// (what a listening server needs to take the commit without reading this table:
/// ``CommitNotices``), or, when that is longer than ``noticeBytes``, only its last number.
///
/// `previous` holds, for each object, what it held before the commit (``PreviousValuesForm``:
/// the values the commit replaced), or NULL (an inserted object, or a row written by a server
/// that records none: `_graph_history_write_1`, before the column existed). With them a server
/// judges another's commit on objects its cache does not hold (a live query's "did it match
/// before?").
enum CommitHistory {
    static let table = "_graph_history"
    /// The channel of the commit notifications.
    static let channel = "_graph_commits"
    static let lockKey: Int64 = 0x6772_6170_6868_6973  // "graphhis"
    /// The longest notification that carries the rows (PostgreSQL refuses payloads of 8,000 bytes).
    static let noticeBytes = 7_900

    /// The statement that creates the table (also run on databases made before it existed).
    static let creationStatement = """
        CREATE TABLE IF NOT EXISTS "\(table)" (seq bigint PRIMARY KEY, committed_at bigint NOT NULL, author text, \
        entities text[] NOT NULL, refs bigint[] NOT NULL, kinds text NOT NULL, previous text[])
        """

    /// The statement that adds the column `previous` to a table made before it existed.
    static let previousColumnStatement = "ALTER TABLE \"\(table)\" ADD COLUMN IF NOT EXISTS previous text[]"

    /// The function that numbers and writes a commit's history rows (its parameters: the
    /// objects' entities, references and previous values, flattened; the time; each part's
    /// author, first and last object (1-based, inclusive) and kinds) and answers their first and
    /// last numbers. Its name carries the version of its text: a server that changes the text
    /// uses a new name, and servers of both versions run beside one another (version 1 wrote no
    /// previous values).
    static let writeFunction = "_graph_history_write_2"

    /// The statement that creates ``writeFunction`` (run when a database opened has none).
    ///
    /// The notification is the rows as JSON when that fits ``noticeBytes``, else the last
    /// number. plpgsql keeps the plans of the function's statements for the connection's life.
    static let functionCreationStatement = """
        CREATE FUNCTION "\(writeFunction)"(p_entities text[], p_refs bigint[], p_previous text[], p_at bigint, \
        p_authors text[], p_firsts bigint[], p_lasts bigint[], p_kinds text[], OUT first_seq bigint, OUT last_seq bigint) \
        LANGUAGE plpgsql VOLATILE AS $body$
        DECLARE last_before bigint; payload text;
        BEGIN
          PERFORM pg_advisory_xact_lock(\(lockKey));
          SELECT coalesce(max(seq), 0) INTO last_before FROM "\(table)";
          WITH added AS (INSERT INTO "\(table)" (seq, committed_at, author, entities, refs, kinds, previous)
            SELECT last_before + p.n, p_at, p.author, p_entities[p.lo::int : p.hi::int], p_refs[p.lo::int : p.hi::int], p.kinds,
              p_previous[p.lo::int : p.hi::int]
            FROM unnest(p_authors, p_firsts, p_lasts, p_kinds) WITH ORDINALITY AS p(author, lo, hi, kinds, n)
            RETURNING seq, committed_at, author, entities, refs, kinds, previous)
          SELECT min(seq), max(seq),
            json_agg(json_build_array(seq, committed_at, author, entities, refs, kinds, previous) ORDER BY seq)::text
            INTO first_seq, last_seq, payload FROM added;
          PERFORM pg_notify('\(channel)', CASE WHEN octet_length(payload) <= \(noticeBytes) THEN payload ELSE last_seq::text END);
        END $body$
        """

    /// Whether the database holds ``writeFunction``.
    static let functionExistsStatement = """
        SELECT to_regprocedure('"\(writeFunction)"(text[], bigint[], text[], bigint, text[], bigint[], bigint[], text[])') IS NOT NULL
        """

    /// The statement that writes one row per part, as the last of the transaction under way
    /// (nil for no parts: a save without parts writes no row), sent with the `COMMIT`
    /// (``DatabaseSession/pipelinedTransaction(_:)``); ``numbers(in:count:)`` reads its answer.
    ///
    /// One statement for every part, its text the same for every commit: a call of
    /// ``writeFunction`` with the parts' columns as arrays (each part's objects a slice of one
    /// flattened array). The numbering lock that every server's commit waits for is taken in
    /// the call, after PostgreSQL has parsed and planned the statement.
    static func statement(for parts: [HistoryRow], time: Date) throws -> SQLStatement? {
        guard !parts.isEmpty else { return nil }
        let milliseconds = Int64(exactly: (time.timeIntervalSince1970 * 1000).rounded(.down)) ?? 0
        let objectCount = parts.reduce(0) { $0 + $1.objects.count }
        var authors = ColumnArray(.text, capacity: parts.count), kinds = ColumnArray(.text, capacity: parts.count)
        var firsts = ColumnArray(.int8, capacity: parts.count), lasts = ColumnArray(.int8, capacity: parts.count)
        var entities = ColumnArray(.text, capacity: objectCount), references = ColumnArray(.int8, capacity: objectCount)
        var previous = ColumnArray(.text, capacity: objectCount)
        var position: Int64 = 0
        for part in parts {
            try authors.append(part.author.map(Value.string) ?? .null, entity: table, key: "author")
            try kinds.append(.string(part.objects.map(\.kind.rawValue).joined()), entity: table, key: "kinds")
            // 1-based and inclusive, as PostgreSQL's slices are; an empty part is the slice [n + 1:n].
            firsts.append(position + 1)
            for (index, object) in part.objects.enumerated() {
                try entities.append(.string(object.entity), entity: table, key: "entities")
                references.append(object.reference)
                let text = index < part.previous.count ? part.previous[index] : nil
                try previous.append(text.map(Value.string) ?? .null, entity: table, key: "previous")
                position += 1
            }
            lasts.append(position)
        }
        var insert = SQLStatement()
        let arguments = [insert.parameter(entities), insert.parameter(references), insert.parameter(previous), insert.parameter(milliseconds),
                         insert.parameter(authors), insert.parameter(firsts), insert.parameter(lasts), insert.parameter(kinds)]
        insert.text = "SELECT first_seq, last_seq FROM \"\(writeFunction)\"(\(arguments.joined(separator: ", ")))"
        return insert
    }

    /// The numbers of the rows written by ``statement(for:time:)`` for `count` parts, from its
    /// answer, checked to be exactly `count` in a row (first <= last, their difference without
    /// overflow).
    ///
    /// The transaction has committed by then: unreadable numbers mean a save that took place
    /// but whose numbers this server cannot tell, and the error says so.
    static func numbers(in rows: [PostgresRow], count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        guard let row = rows.first,
              let first = try ColumnReader.integer(row.makeRandomAccess()[0], what: "min(seq)"),
              let last = try ColumnReader.integer(row.makeRandomAccess()[1], what: "max(seq)"),
              first <= last, case let (span, overflow) = last.subtractingReportingOverflow(first), !overflow,
              span == Int64(exactly: count - 1) else {
            throw PostgresStoreError.damagedSchema("the table \(table) did not number \(count) commits in a row (the save was committed)")
        }
        return Array(first...last)
    }

    /// The number of the last commit as a scalar subquery (0 before the first): a column of a
    /// statement that reads objects says which commits the statement's snapshot holds.
    static let latestExpression = "(SELECT coalesce(max(seq), 0) FROM \"\(table)\")"

    /// The number of the last commit (0 before the first).
    static func latest(session: DatabaseSession) throws -> Int64 {
        let rows = try session.runPrepared(SQLStatement("SELECT \(latestExpression)"))
        guard let row = rows.first else { return 0 }
        return try ColumnReader.integer(row.makeRandomAccess()[0], what: "max(seq)") ?? 0
    }

    /// Up to `limit` commits after number `after` (and at most `through`), in order, their
    /// objects' previous values read with `previous` (none without it).
    static func commits(after: Int64, through: Int64?, limit: Int, previous reader: PreviousValuesReader?,
                        session: DatabaseSession) throws -> [StoreCommit] {
        var statement = SQLStatement()
        var conditions = ["seq > \(statement.parameter(after))"]
        if let through { conditions.append("seq <= \(statement.parameter(through))") }
        statement.text = """
            SELECT seq, committed_at, author, entities, refs, kinds, array_replace(previous, NULL, '') FROM "\(table)" \
            WHERE \(conditions.joined(separator: " AND ")) ORDER BY seq LIMIT \(statement.parameter(Int64(limit)))
            """
        return try session.runPrepared(statement).map { row in
            let cells = row.makeRandomAccess()
            guard let seq = try ColumnReader.integer(cells[0], what: "seq"),
                  let time = try ColumnReader.integer(cells[1], what: "committed_at") else {
                throw PostgresStoreError.damagedSchema("a row of \(table) has no number or time")
            }
            let author = try ColumnReader.text(cells[2], what: "author")
            let entities: [String], references: [Int64]
            do {
                entities = try cells[3].decode([String].self)
                references = try cells[4].decode([Int64].self)
            } catch {
                throw PostgresStoreError.damagedSchema("the row \(seq) of \(table) has unreadable objects")
            }
            let kinds = try ColumnReader.text(cells[5], what: "kinds") ?? ""
            guard entities.count == references.count, kinds.count == entities.count else {
                throw PostgresStoreError.damagedSchema("the row \(seq) of \(table) names \(entities.count) entities, \(references.count) references and \(kinds.count) kinds")
            }
            // NULL for a row written without them; "" for an object without them.
            let previous = reader == nil ? nil : try? cells[6].decode([String]?.self)
            var objects: [CommittedObject] = []
            for (index, ((entity, reference), letter)) in zip(zip(entities, references), kinds).enumerated() {
                guard let kind = CommittedObject.Kind(rawValue: String(letter)) else {
                    throw PostgresStoreError.damagedSchema("the row \(seq) of \(table) has the unknown kind \(letter)")
                }
                var object = CommittedObject(entity: entity, reference: reference, kind: kind)
                if let reader, let previous, previous.count == entities.count, !previous[index].isEmpty {
                    object.previous = reader.values(previous[index], entity: entity)
                }
                objects.append(object)
            }
            return StoreCommit(sequence: seq, time: Date(timeIntervalSince1970: Double(time) / 1000), author: author, objects: objects)
        }
    }
}
