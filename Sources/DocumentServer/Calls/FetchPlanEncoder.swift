import GraphCore
import JSONCore

/// The wire form of a fetch's plan, the `plan` member of a `fetch` answer asked with
/// `explain: true` (`docs/PROTOCOL.md`):
///
/// ```json
/// "plan": {"access": "index", "index": "byEmail", "key": "email", "operation": "==",
///          "sortedByIndex": false, "objectsExamined": 1, "text": "index byEmail on email (==), examined 1 object"}
/// ```
///
/// A scan has `"access": "scan"` and no `index`, `key` or `operation`. A fetch a server with a
/// bounded cache ran in its database has `"access": "sql"` and the database's plan as `sql`
/// (the statement, and what of the predicate was left to the server).
enum FetchPlanEncoder {
    /// The `plan` member: its key and value.
    static func write(_ plan: FetchPlan, database: String? = nil, to out: JSONGenerator) throws {
        try out.string("plan")
        try writeValue(plan, database: database, to: out)
    }

    /// The plan object alone.
    static func writeValue(_ plan: FetchPlan, database: String? = nil, to out: JSONGenerator) throws {
        try out.openObject()
        try out.string("access")
        switch (database, plan.access) {
        case (let sql?, _):
            try out.string("sql")
            try out.string("sql")
            try out.string(sql)
        case (nil, .scan):
            try out.string("scan")
        case (nil, .index(let name, let key, let operation)):
            try out.string("index")
            try out.string("index")
            try out.string(name)
            try out.string("key")
            try out.string(key)
            try out.string("operation")
            try out.string(operation)
        }
        try out.string("sortedByIndex")
        try out.bool(plan.isSortedByIndex)
        try out.string("objectsExamined")
        try out.integer(Int64(plan.objectsExamined))
        try out.string("text")
        try out.string(database.map { "in the database: \($0)" } ?? plan.description)
        try out.closeObject()
    }
}
