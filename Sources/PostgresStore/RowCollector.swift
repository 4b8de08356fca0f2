import PostgresNIO

/// What reads a statement's rows as postgres-nio hands them over: collects them
/// (``RowCollector``) or passes them on (``RowStream``).
protocol RowConsumer {
    associatedtype Output
    func consume<Rows: AsyncSequence>(_ rows: Rows) async throws -> Output where Rows.Element == PostgresRow
}

/// Collects a statement's rows as postgres-nio hands them over, and stops at the first row that
/// takes them past `limit` bytes (their cells' bytes as PostgreSQL sent them, in its binary
/// form) with ``PostgresStoreError/resultTooLarge(limit:)``: the rest are never held. Leaving
/// the sequence early is safe; postgres-nio reads and drops what the statement still sends, and
/// the connection serves the next statement.
struct RowCollector: RowConsumer {
    /// The most bytes of rows kept; nil keeps every row.
    let limit: Int?

    /// Every row of `rows`, or the error past ``limit``.
    func collect<Rows: AsyncSequence>(_ rows: Rows) async throws -> [PostgresRow] where Rows.Element == PostgresRow {
        var kept: [PostgresRow] = []
        var bytes = 0
        for try await row in rows {
            if let limit {
                for cell in row {
                    // Saturating: a limit near Int.max (an answer limit that large) must not trap.
                    let (sum, overflow) = bytes.addingReportingOverflow(cell.bytes?.readableBytes ?? 0)
                    bytes = overflow ? Int.max : sum
                }
                if bytes > limit { throw PostgresStoreError.resultTooLarge(limit: limit) }
            }
            kept.append(row)
        }
        return kept
    }

    func consume<Rows: AsyncSequence>(_ rows: Rows) async throws -> [PostgresRow] where Rows.Element == PostgresRow {
        try await collect(rows)
    }
}

/// Hands a statement's rows to `receive` as they come, ``rowsAtOnce`` at a time (fewer at the
/// end), reading no more until it returned: postgres-nio stops reading the connection while its
/// buffer is full, so that a slow receiver slows the database's sending instead of the rows
/// piling up. Returns the first row (the commit a fetch read is in each row). An error of
/// `receive` stops the statement as ``PostgresStoreError/receiverStopped`` (the connection
/// serves the next one); the error itself is kept in ``failure`` for the caller.
struct RowStream: RowConsumer {
    /// Rows handed over together: enough that a batch's objects are read in one go, few
    /// enough to hold little.
    static let rowsAtOnce = 64

    let receive: ([PostgresRow]) async throws -> Void
    let failure: Failure

    /// What made `receive` stop, once it did.
    final class Failure: @unchecked Sendable {
        // @unchecked: set and read in the one task that runs the statement.
        var error: (any Error)?
    }

    func consume<Rows: AsyncSequence>(_ rows: Rows) async throws -> PostgresRow? where Rows.Element == PostgresRow {
        var first: PostgresRow?
        var batch: [PostgresRow] = []
        batch.reserveCapacity(Self.rowsAtOnce)
        for try await row in rows {
            if first == nil { first = row }
            batch.append(row)
            if batch.count == Self.rowsAtOnce {
                try await hand(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { try await hand(batch) }
        return first
    }

    private func hand(_ batch: [PostgresRow]) async throws {
        do {
            try await receive(batch)
        } catch {
            failure.error = error
            throw PostgresStoreError.receiverStopped
        }
    }
}
