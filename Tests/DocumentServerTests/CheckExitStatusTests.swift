import Foundation
import ServerTestSupport
import Testing

/// `docserver check` tells "the store is invalid" (1) from "it cannot be checked" (2).
@Suite struct CheckExitStatusTests {
    @Test func checkOfAMissingStoreExitsTwoAndCreatesNothing() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.file("nothing.json")
        let result = try runDocServer(["check", "--store", missing.path])
        #expect(result.status == 2, "\(result.errors)")
        #expect(result.errors.contains("nothing.json: no such store file"), "\(result.errors)")
        #expect(!FileManager.default.fileExists(atPath: missing.path))
        let folder = try runDocServer(["check", "--store", directory.url.path])
        #expect(folder.status == 2, "a directory is not a store file: \(folder.errors)")
    }

    @Test func checkWithAMissingOrInvalidModelExitsTwoWithTheModelsError() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        try server.stop()
        let broken = directory.file("broken.model.json")
        try Data(#"{"entities":[{"name":"Note","attributes":[{"name":"text","type":"strin"}]}]}"#.utf8).write(to: broken)
        for model in [broken.path, directory.file("absent.model.json").path] {
            let result = try runDocServer(["check", "--model", model, "--store", server.storeURL.path])
            #expect(result.status == 2, "\(model): \(result.errors)")
            #expect(result.errors.hasPrefix("cannot check: the model cannot be used: "), "\(result.errors)")
        }
    }
}
