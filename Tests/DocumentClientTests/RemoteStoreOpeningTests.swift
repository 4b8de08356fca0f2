import DocumentClient
import Foundation
import GraphCore
import ServerTestSupport
import Testing

/// Adding a `RemoteStore` to a coordinator: its URL and options are checked before anything is
/// sent, then it says `hello` (with the token) and checks the server's model against the
/// coordinator's. Every refusal is an error a user can act on.
@Suite struct RemoteStoreOpeningTests {
    init() { RemoteStore.register() }

    private static func open(_ url: URL, model: ObjectModel, options: [String: String] = [:]) throws -> StoreCoordinator {
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: RemoteStore.storeType, at: url, options: StoreOptions(values: options))
        return coordinator
    }

    private static func url(_ text: String) throws -> URL {
        try #require(URL(string: text))
    }

    @Test func aModelThatDiffersFromTheServersIsAMismatchNamingTheEntity() throws {
        let store = try StoreFixture(.documentServer)
        let server = try #require(store.server)
        let other = try BehaviourModel.make(extraTagAttributes: [AttributeDescription("colour", .string, isOptional: true)])

        #expect(throws: GraphError.modelMismatch(entities: ["Tag"])) {
            try Self.open(try Self.url("docstore://\(server.host):\(server.port)"), model: other)
        }
    }

    @Test(arguments: [
        "http://127.0.0.1:7878",
        "docstore:///",
        "docstore://127.0.0.1:7878/songs",
        "docstore://127.0.0.1:7878?prefetch=10",
        "docstore://user@127.0.0.1:7878",
    ])
    func aURLOtherThanDocstoreHostPortIsInvalid(text: String) throws {
        let url = try Self.url(text)
        let error = #expect(throws: DocumentClientError.self) { try Self.open(url, model: try BehaviourModel.make()) }

        guard case .invalidURL(let named, _)? = error else {
            Issue.record("expected invalidURL, got \(String(describing: error))")
            return
        }
        #expect(named == text)
        #expect(message(of: error).contains("docstore://host:port"))
    }

    @Test(arguments: [
        ("prefetch", "0"),
        ("prefetch", "many"),
        ("requestTimeout", "abc"),
        ("connectTimeout", "-1"),
        ("prefetchLifetime", "inf"),
        ("prefetchLifetime", "1e300"),  // past Int64 nanoseconds: used to trap converting
        ("requestTimeout", "1e10"),
        ("rowCacheCapacity", "0"),
        ("prefetchSize", "100"),   // no such option
    ])
    func anUnknownOptionOrABadValueIsInvalidAndNamed(name: String, value: String) throws {
        let url = try Self.url("docstore://127.0.0.1:\(try unusedPort())")
        let error = #expect(throws: DocumentClientError.self) {
            try Self.open(url, model: try BehaviourModel.make(), options: [name: value])
        }

        guard case .invalidOption(let named, let given, _)? = error else {
            Issue.record("expected invalidOption, got \(String(describing: error))")
            return
        }
        #expect(named == name)
        #expect(given == value)
        #expect(message(of: error).contains(name))
    }

    @Test func aServerWithATokenRefusesAStoreWithoutItOrWithAnotherAndAcceptsIt() throws {
        let model = try BehaviourModel.make()
        let directory = try TemporaryDirectory()
        try model.jsonRepresentation().write(to: directory.file("model.json"))
        let server = try ServerProcess(store: directory.file("store.json"), arguments: [
            "--model", directory.file("model.json").path, "--auth-token", "s3cret", "--log-level", "warning",
        ])
        let url = try Self.url("docstore://\(server.host):\(server.port)")

        for options in [[:], ["token": "wrong"]] {
            let error = #expect(throws: DocumentClientError.self) { try Self.open(url, model: model, options: options) }
            guard case .server(let refusal)? = error else {
                Issue.record("expected the server's refusal, got \(String(describing: error))")
                continue
            }
            #expect(refusal.code == RemoteError.Code.unauthorized)
            #expect(refusal.method == "hello")
            #expect(message(of: error).contains("unauthorized"))
        }

        let coordinator = try Self.open(url, model: model, options: ["token": "s3cret"])
        defer { coordinator.persistentStores.forEach(coordinator.remove) }
        let context = ObjectContext(coordinator: coordinator)
        _ = try context.insert("Tag", values: ["name": "modal"])
        try context.save()
        #expect(try ObjectContext(coordinator: coordinator).count("Tag") == 1)
    }

    @Test func nothingListeningIsCannotConnectNamingTheAddress() throws {
        let port = try unusedPort()
        let url = try Self.url("docstore://127.0.0.1:\(port)")

        let error = #expect(throws: DocumentClientError.self) { try Self.open(url, model: try BehaviourModel.make()) }

        guard case .cannotConnect(let address, _)? = error else {
            Issue.record("expected cannotConnect, got \(String(describing: error))")
            return
        }
        #expect(address == "127.0.0.1:\(port)")
        #expect(message(of: error).contains("127.0.0.1:\(port)"))
    }
}
