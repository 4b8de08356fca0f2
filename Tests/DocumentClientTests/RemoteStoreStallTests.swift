import DocumentClient
import Foundation
import GraphCore
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A `RemoteStore` whose server stops answering holds up only the contexts that need it: other
/// stores of the same coordinator stay usable.
@Suite struct RemoteStoreStallTests {
    @Test func aContextUsesAnInMemoryStoreWhileARemoteFaultWaitsForAStoppedServer() throws {
        let fixture = try StoreFixture(.documentServer)
        let inserted = try fixture.context.insert("Song", values: ["title": "Remote", "plays": 4])
        try fixture.context.save()
        let remoteSong = inserted.objectID
        let server = try #require(fixture.server)
        let url = try #require(URL(string: "docstore://\(server.host):\(server.port)"))

        // An in-memory store first (inserts go there), the server's store second.
        let coordinator = StoreCoordinator(model: fixture.model)
        let memory = try coordinator.addPersistentStore(type: "InMemory")
        let remote = try #require(try coordinator.addPersistentStore(
            type: RemoteStore.storeType, at: url, options: StoreOptions(values: ["requestTimeout": "30"])) as? RemoteStore)
        defer { coordinator.remove(remote) }
        let seed = ObjectContext(coordinator: coordinator)
        try seed.insert("Song", values: ["title": "Local"])
        try seed.save()
        let memoryID = memory.identifier

        try server.pause()
        var resumed = false
        defer { if !resumed { server.resume() } }

        let requestsBefore = remote.client.statistics.requests
        let fault = Outcome<String>()
        let faultDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let context = ObjectContext(coordinator: coordinator)
            let result = Result { try context.object(with: remoteSong).get("title") as String }
            fault.set(result)
            faultDone.signal()
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while remote.client.statistics.requests == requestsBefore, ContinuousClock.now < deadline { usleep(2_000) }
        #expect(remote.client.statistics.requests == requestsBefore + 1, "the fault sent no request")

        // A second context fetches and saves on the in-memory store while the `get` waits.
        let work = Outcome<[String]>()
        let workDone = DispatchSemaphore(value: 0)
        let started = ContinuousClock.now
        Thread.detachNewThread {
            let result = Result {
                let context = ObjectContext(coordinator: coordinator)
                var request = FetchRequest(entityName: "Song", sortDescriptors: [SortDescriptor("title")])
                request.affectedStoreIdentifiers = [memoryID]
                guard let local = try context.fetch(request).first else { throw GraphError.store("no song in memory") }
                try local.set("plays", 9)
                try context.insert("Song", values: ["title": "Local too"])
                try context.save()
                let reader = ObjectContext(coordinator: coordinator)
                return try reader.fetch(request).map { try "\($0.get("title") as String) \($0.get("plays") as Int)" }
            }
            work.set(result)
            workDone.signal()
        }
        let workFinishedInTime = workDone.wait(timeout: .now() + 5) == .success
        let workTime = ContinuousClock.now - started
        let faultStillWaiting = fault.result == nil

        server.resume()
        resumed = true
        if !workFinishedInTime { workDone.wait() }
        faultDone.wait()

        #expect(workFinishedInTime, "the in-memory store waited for the stopped server (\(workTime))")
        #expect(faultStillWaiting, "the fault did not wait for the stopped server")
        #expect(try work.result?.get() == ["Local 9", "Local too 0"])
        #expect(try fault.result?.get() == "Remote")
    }
}

/// What a thread of a test ends with, read by the test's thread.
private final class Outcome<T: Sendable>: Sendable {
    private let value = Mutex<Result<T, any Error>?>(nil)
    func set(_ result: Result<T, any Error>) { value.withLock { $0 = result } }
    var result: Result<T, any Error>? { value.withLock { $0 } }
}
