import Foundation
import ServerTestSupport
import Testing

/// A page of an unsorted fetch (`limit`, no `sort`) is kept while scanning rather than cut from
/// every match sorted: it must be exactly the slice of the whole answer, in reference order,
/// with or without a predicate, for any offset.
@Suite struct UnsortedPageTests {
    @Test func aPageWithoutASortIsTheSliceOfTheWholeAnswerInReferenceOrder() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        for batch in 0..<6 {
            let inserts: [[String: Any]] = (0..<50).map { n in
                ["id": "t\(n)", "entity": "Tag", "values": ["label": "tag \(batch * 50 + n) \((batch * 50 + n) % 3 == 0 ? "red" : "blue")"]]
            }
            _ = try client.result("save", ["insert": inserts])
        }
        for predicate in [nil, "label ENDSWITH 'red'"] as [String?] {
            var params: [String: Any] = ["entity": "Tag", "resultType": "ids"]
            if let predicate { params["predicate"] = predicate }
            let whole = try client.result("fetch", params)["ids"].strings ?? []
            #expect(whole.count == (predicate == nil ? 300 : 100))
            let references = whole.compactMap { $0.split(separator: "/").last.flatMap { Int($0) } }
            #expect(references == references.sorted(), "the whole answer is in reference order")
            for (offset, limit) in [(0, 1), (0, 25), (7, 13), (90, 20), (250, 100), (299, 5), (400, 10)] {
                var paging = params
                paging["offset"] = offset
                paging["limit"] = limit
                let page = try client.result("fetch", paging)["ids"].strings ?? []
                let start = min(offset, whole.count)
                #expect(page == Array(whole[start..<min(start + limit, whole.count)]), "offset \(offset), limit \(limit), \(predicate ?? "no predicate")")
                paging["resultType"] = "objects"
                let objects = try client.result("fetch", paging)["objects"].array ?? []
                #expect(objects.compactMap { $0["id"].string } == page)
            }
        }
    }
}
