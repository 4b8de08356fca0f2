import Foundation
import GraphCore
import Testing

/// The harness itself: what a `.documentServer` fixture gives its server, and how it reopens.
@Suite struct StoreFixtureTests {
    /// The version hash leaves delete rules out, so the whole file is compared too: a server with
    /// other delete rules would pass a hash check and still behave differently.
    @Test func theServerReadsAModelFileOfTheTestsOwnModel() throws {
        let store = try StoreFixture(.documentServer)
        let served = try ObjectModel(contentsOf: store.directory.file("model.json"))
        #expect(served.versionHash == store.model.versionHash)
        #expect(served.jsonRepresentation() == store.model.jsonRepresentation())
        #expect(served.entities.map(\.name) == store.model.entities.map(\.name))
    }

    @Test func reopeningADocumentServerStartsANewServerOnTheSameStoreFile() throws {
        let store = try StoreFixture(.documentServer)
        let first = try #require(store.server)
        try store.reopen()
        let second = try #require(store.server)
        #expect(!first.isRunning)
        #expect(first.terminationReason == .exit)
        #expect(second.isRunning)
        #expect(second !== first)
        #expect(second.storeURL == first.storeURL)
        #expect(second.storeURL == store.storeFileURL)
    }
}
