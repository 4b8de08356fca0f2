import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore

/// The text forms the loader accepts beyond the ones the writer produces.
@Suite struct ValueSpellingTests {
    let model: ObjectModel
    let directory: TemporaryDirectory

    init() throws {
        model = try CatalogModel.make()
        directory = try TemporaryDirectory()
    }

    @Test func otherSpellingsOfValuesAreAcceptedOnLoad() throws {
        let values = "\"uid\":\"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\",\"added\":\"2024-05-01T14:30:00.2504+02:00\","
            + "\"ratio\":3,\"weight\":-0,\"price\":12,\"blob\":\"\",\"medium\":-2147483648,\"small\":-0"
        let url = directory.file("store.json")
        try Data(StoreFiles.document(model, objects: "{\"Item\":[\(StoreFiles.item(1, values))]}").utf8).write(to: url)
        let open = try OpenStore(url, model: model)
        let node = try #require(open.store.cacheNodes().first)
        let value = { (key: String) in node.value(forKey: key) }
        #expect(value("uid") == .uuid(UUID(uuidString: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")!))
        #expect(value("added") == .date(Date(timeIntervalSince1970: 1_714_566_600.25)))
        #expect(value("ratio") == .double(3))
        #expect(value("price") == .decimal(12))
        #expect(value("blob") == .binary(Data()))
        #expect(value("medium") == .int(-2_147_483_648))
        #expect(value("small") == .int(0))
        try open.store.save()
        let text = try fileText(url)
        #expect(text.contains("\"uid\":\"e621e1f8-c36c-495a-93fc-0c247a3e6e5f\""))
        #expect(text.contains("\"added\":\"2024-05-01T12:30:00.250Z\""))
        #expect(text.contains("\"ratio\":3.0") && text.contains("\"weight\":-0.0") && text.contains("\"price\":\"12\""))
    }
}
