import Testing
@testable import GraphCore

/// `ObjectIDReader`: the IDs it reads, and the errors it throws, are exactly those of
/// `ObjectID(uri:model:)`, whichever URIs came before (it remembers the last store and entity).
@Suite struct ObjectIDReaderTests {
    private static let store = "5C0E6B1A-3F3B-4C55-9C1D-2B7C3D7C9E10"

    /// Usual URIs and every kind of unusual one, in an order that changes store and entity.
    static let uris: [String] = [
        "graph://\(store)/Song/7", "graph://\(store)/Song/8", "graph://\(store)/Album/8", "graph://other/Song/8",
        "graph://\(store)/Song/0", "graph://\(store)/Song/9223372036854775807", "graph://\(store)/Song/9223372036854775808",
        "graph://\(store)/Song/-3", "graph://\(store)/Song/-0", "graph://\(store)/Song/007", "graph://\(store)/Song/+7",
        "graph://\(store)/Song/7a", "graph://\(store)/Song/abc", "graph://\(store)/Song/a%20b", "graph://\(store)/Song/%zz",
        "graph://\(store)/Song/", "graph://\(store)/Song", "graph://\(store)/Song/7/8", "graph://\(store)//7", "graph:///Song/7",
        "graph:///Song/t0B4E2C1A-3F3B-4C55-9C1D-2B7C3D7C9E10", "graph://\(store)/Nope/7", "graph://\(store)/song/7",
        "graph://\(store)/Dog/7", "graph://\(store)/Animal/7", "graph://\(store)/Cat/7", "graph://\(store)/Song/7",
        "graph:/\(store)/Song/7", "Graph://\(store)/Song/7", "graph://", "graph://x", "", "graph://s/Song/١٢",
        "graph://sté/Song/7", "graph://s/Song/7\u{301}", "graph:/\u{2F}\u{301}s/Song/7", "graph://s\r\n/Song/7",
        "graph://\(store)/Song/12345678901234567890", "graph://other/Song/8", "graph://\(store)/Song/7",
    ]

    /// The ID or the error, as `ObjectID(uri:model:)` gives it.
    private static func general(_ uri: String, _ model: ObjectModel) -> Result<ObjectID, GraphError> {
        do throws(GraphError) { return .success(try ObjectID(uri: uri, model: model)) } catch { return .failure(error) }
    }

    private static func expectSame(_ read: Result<ObjectID, GraphError>, _ expected: Result<ObjectID, GraphError>, _ uri: String) {
        switch (read, expected) {
        case (.success(let id), .success(let other)):
            #expect(id == other, "\(uri)")
            #expect(id.entity === other.entity, "\(uri)")
            #expect(id.storeIdentifier == other.storeIdentifier, "\(uri)")
            #expect(id.referenceObject == other.referenceObject, "\(uri)")
            #expect(id.isTemporary == other.isTemporary, "\(uri)")
            #expect(id.uriRepresentation == other.uriRepresentation, "\(uri)")
            #expect(id.hashValue == other.hashValue, "\(uri)")
        case (.failure(let error), .failure(let other)):
            #expect(error == other, "\(uri)")
            #expect(error.description == other.description, "\(uri)")
        default:
            Issue.record("\(uri): the reader gave \(read), ObjectID(uri:model:) \(expected)")
        }
    }

    @Test func everyURIReadsAsObjectIDInitReadsIt() throws {
        let model = try MusicModel.make()
        var reader = ObjectIDReader(model: model)
        for uri in Self.uris + Self.uris.reversed() {
            let read: Result<ObjectID, GraphError>
            do throws(GraphError) { read = .success(try reader.objectID(uri: uri)) } catch { read = .failure(error) }
            Self.expectSame(read, Self.general(uri, model), uri)
        }
    }

    @Test func everyURIReadFromItsBytesReadsAsObjectIDInitReadsIt() throws {
        let model = try MusicModel.make()
        var reader = ObjectIDReader(model: model)
        for uri in Self.uris.reversed() + Self.uris {
            let bytes = Array(uri.utf8)
            let read: Result<ObjectID, GraphError> = bytes.withUnsafeBytes { raw in
                do throws(GraphError) { return .success(try reader.objectID(utf8: raw)) } catch { return .failure(error) }
            }
            Self.expectSame(read, Self.general(uri, model), uri)
        }
    }

    @Test func aUsualIDSharesTheStoreKeyOfTheIDsMadeTheGeneralWay() throws {
        let model = try MusicModel.make()
        var reader = ObjectIDReader(model: model)
        let first = try reader.objectID(uri: "graph://\(Self.store)/Song/1")
        let second = try reader.objectID(uri: "graph://\(Self.store)/Album/2")
        let general = try ObjectID(uri: "graph://\(Self.store)/Song/1", model: model)
        #expect(first.storage.store === general.storage.store)
        #expect(second.storage.store === general.storage.store)
        #expect(!(first.storage is ObjectID.StringStorage))
    }
}
