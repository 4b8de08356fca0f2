import GraphCore
import Testing
@testable import DocumentClient

@Test func remoteStoreRegistersAsDocumentServer() {
    RemoteStore.register()
    #expect(StoreRegistry.storeClass(named: "DocumentServer") == RemoteStore.self)
}
