import PostgresNIO

/// Collects a statement's rows as postgres-nio hands them over, and stops at the first row that
/// takes them past `limit` bytes (their cells' bytes as PostgreSQL sent them, in its binary
/// form) with ``PostgresStoreError/resultTooLarge(limit:)``: the rest are never held. Leaving
/// the sequence early is safe; postgres-nio reads and drops what the statement still sends, and
/// the connection serves the next statement.
struct RowCollector {
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
}
