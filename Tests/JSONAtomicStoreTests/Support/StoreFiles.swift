import Foundation
import GraphCore
@testable import JSONAtomicStore

/// Store files written by hand, for the loader's error tests.
enum StoreFiles {
    static let uuid = "5d8f0c9e-2b7a-4c41-8e0f-7a6b5c4d3e2f"

    /// A valid header for `model`, then `objects` as the text of the "objects" object.
    static func document(_ model: ObjectModel, objects: String = "{}", hashes: [String: String]? = nil,
                         format: String = "\"graphcore-json-store\"", version: String = "1") -> String {
        let hashes = (hashes ?? model.entityVersionHashes).sorted { $0.key < $1.key }
            .map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ",")
        return """
        {"format":\(format),"formatVersion":\(version),"metadata":{"storeType":"JSON","storeUUID":"\(uuid)",\
        "modelVersionHash":"\(model.versionHash)","entityVersionHashes":{\(hashes)},"nextReference":1,"userInfo":{}},\
        "objects":\(objects)}

        """
    }

    /// An `Item` with every required value and the given extra `values` members.
    static func item(_ ref: Int, _ extra: String = "", version: Int = 1) -> String {
        "{\"ref\":\(ref),\"version\":\(version),\"values\":{\"name\":\"item \(ref)\"\(extra.isEmpty ? "" : "," + extra)}}"
    }

    /// Writes `text` as a store file and opens it; returns the error the open threw.
    static func openError(_ text: String, model: ObjectModel, in directory: TemporaryDirectory) -> Error? {
        let url = directory.file("store.json")
        do {
            try Data(text.utf8).write(to: url)
            let store = try OpenStore(url, model: model)
            store.close()
            return nil
        } catch {
            return error
        }
    }
}
