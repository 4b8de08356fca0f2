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
/// A scan has `"access": "scan"` and no `index`, `key` or `operation`.
enum FetchPlanEncoder {
    /// The `plan` member: its key and value.
    static func write(_ plan: FetchPlan, to out: JSONGenerator) throws {
        try out.string("plan")
        try writeValue(plan, to: out)
    }

    /// The plan object alone.
    static func writeValue(_ plan: FetchPlan, to out: JSONGenerator) throws {
        try out.openObject()
        switch plan.access {
        case .scan:
            try out.string("access")
            try out.string("scan")
        case .index(let name, let key, let operation):
            try out.string("access")
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
        try out.string(plan.description)
        try out.closeObject()
    }
}
