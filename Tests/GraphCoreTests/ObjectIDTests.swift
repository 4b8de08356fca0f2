import Foundation
import Testing
@testable import GraphCore

/// Object IDs: their URI forms, parsing, and equality across an entity hierarchy.
@Suite struct ObjectIDTests {
    private let store = "5C0E6B1A-3F3B-4C55-9C1D-2B7C3D7C9E10"

    private func entity(_ name: String, in model: ObjectModel) throws -> EntityDescription {
        try #require(model.entity(named: name))
    }

    /// Parses `uri` and returns the error it throws, or nil when it parses.
    private func parseError(_ uri: String, model: ObjectModel) -> GraphError? {
        do {
            _ = try ObjectID(uri: uri, model: model)
            return nil
        } catch {
            return error
        }
    }

    // MARK: - URI forms

    @Test func aPermanentIDsURINamesStoreEntityAndReference() throws {
        let model = try MusicModel.make()
        let id = ObjectID(entity: try entity("Song", in: model), storeIdentifier: store, reference: .int(7))
        #expect(id.uriRepresentation == "graph://\(store)/Song/7")
        #expect(id.description == id.uriRepresentation)
        #expect(!id.isTemporary)
        #expect(id.storeIdentifier == store)
        #expect(id.entityName == "Song")
        #expect(id.entity === model.entity(named: "Song"))
        #expect(id.referenceObject == .int(7))
    }

    @Test func aPermanentIDParsesBackFromItsURI() throws {
        let model = try MusicModel.make()
        for reference in [ReferenceObject.int(7), .int(0), .int(-3), .int(.max), .string("abc"), .string("x-1_2.3~")] {
            let id = ObjectID(entity: try entity("Album", in: model), storeIdentifier: store, reference: reference)
            let parsed = try ObjectID(uri: id.uriRepresentation, model: model)
            #expect(parsed == id)
            #expect(parsed.hashValue == id.hashValue)
            #expect(parsed.referenceObject == reference)
            #expect(parsed.storeIdentifier == store)
            #expect(parsed.entityName == "Album")
            #expect(!parsed.isTemporary)
        }
    }

    @Test func theURIBytesSpellTheURIForEveryKindOfReference() throws {
        let model = try MusicModel.make()
        let numbers: [Int64] = [0, 7, 9, 10, 99, 100, -1, -10, 1_000_000_007, .max, .min, .min + 1]
        let song = try entity("Song", in: model)
        var ids = numbers.map { ObjectID(entity: song, storeIdentifier: store, reference: .int($0)) }
        ids += [ObjectID(entity: try entity("Album", in: model), storeIdentifier: store, reference: .string("a b/ü")),
                ObjectID(entity: try entity("Album", in: model), storeIdentifier: "", reference: .int(3)),
                ObjectID.temporary(for: try entity("Song", in: model))]
        for id in ids {
            let bytes = id.withURIBytes { Array($0) }
            #expect(String(decoding: bytes, as: UTF8.self) == id.uriRepresentation)
        }
    }

    @Test func aTemporaryIDsURIHasNoStoreAndATUUIDReference() throws {
        let model = try MusicModel.make()
        let id = ObjectID.temporary(for: try entity("Song", in: model))
        #expect(id.isTemporary)
        #expect(id.storeIdentifier == nil)
        let uri = id.uriRepresentation
        #expect(uri.hasPrefix("graph:///Song/t"))
        let token = String(uri.dropFirst("graph:///Song/".count))
        #expect(token.count == 37)
        #expect(UUID(uuidString: String(token.dropFirst())) != nil)
        #expect(token == token.lowercased())
        #expect(id.referenceObject == .string(token))
    }

    @Test func aTemporaryIDParsesBackToTheSameID() throws {
        let model = try MusicModel.make()
        let id = ObjectID.temporary(for: try entity("Song", in: model))
        let parsed = try ObjectID(uri: id.uriRepresentation, model: model)
        #expect(parsed == id)
        #expect(parsed.hashValue == id.hashValue)
        #expect(parsed.isTemporary)
        #expect(parsed.uriRepresentation == id.uriRepresentation)
    }

    @Test func aTemporaryIDFromElsewhereParsesAndKeepsItsToken() throws {
        let model = try MusicModel.make()
        let uri = "graph:///Song/t0f8fad5b-d9cb-469f-a165-70867728950e"
        let id = try ObjectID(uri: uri, model: model)
        #expect(id.isTemporary)
        #expect(id.uriRepresentation == uri)
        #expect(id.referenceObject == .string("t0f8fad5b-d9cb-469f-a165-70867728950e"))
        #expect(try ObjectID(uri: uri, model: model) == id)
    }

    @Test func temporaryIDsAreAllDifferent() throws {
        let model = try MusicModel.make()
        let song = try entity("Song", in: model)
        let ids = (0..<1000).map { _ in ObjectID.temporary(for: song) }
        #expect(Set(ids).count == 1000)
        #expect(Set(ids.map(\.uriRepresentation)).count == 1000)
    }

    @Test func aStringReferenceIsPercentEncodedInTheURI() throws {
        let model = try MusicModel.make()
        let reference = ReferenceObject.string("a/b c%d?é#")
        let id = ObjectID(entity: try entity("Song", in: model), storeIdentifier: store, reference: reference)
        #expect(id.uriRepresentation == "graph://\(store)/Song/a%2Fb%20c%25d%3F%C3%A9%23")
        let parsed = try ObjectID(uri: id.uriRepresentation, model: model)
        #expect(parsed.referenceObject == reference)
        #expect(parsed == id)
    }

    @Test func digitsInAReferenceAreReadAsAnInteger() throws {
        let model = try MusicModel.make()
        #expect(try ObjectID(uri: "graph://S/Song/42", model: model).referenceObject == .int(42))
        #expect(try ObjectID(uri: "graph://S/Song/-42", model: model).referenceObject == .int(-42))
        // Not the canonical form of an integer: a string.
        #expect(try ObjectID(uri: "graph://S/Song/042", model: model).referenceObject == .string("042"))
        #expect(try ObjectID(uri: "graph://S/Song/99999999999999999999", model: model).referenceObject
            == .string("99999999999999999999"))
    }

    // MARK: - Parse errors

    @Test(arguments: [
        ("http://S/Song/7", "it does not start with 'graph://'"),
        ("", "it does not start with 'graph://'"),
        ("GRAPH://S/Song/7", "it does not start with 'graph://'"),
        ("graph://S/Song", "expected graph://<store>/<Entity>/<reference>"),
        ("graph://S/Song/7/8", "expected graph://<store>/<Entity>/<reference>"),
        ("graph://", "expected graph://<store>/<Entity>/<reference>"),
        ("graph://S/Record/7", "the model has no entity 'Record'"),
        ("graph://S//7", "the model has no entity ''"),
        ("graph://S/Song/", "the reference is empty or badly percent-encoded"),
        ("graph://S/Song/%ZZ", "the reference is empty or badly percent-encoded"),
        ("graph://S/Song/%", "the reference is empty or badly percent-encoded"),
        ("graph:///Song/7", "a temporary ID's reference must be 't' followed by a UUID"),
        ("graph:///Song/tnot-a-uuid", "a temporary ID's reference must be 't' followed by a UUID"),
        ("graph:///Song/0f8fad5b-d9cb-469f-a165-70867728950e", "a temporary ID's reference must be 't' followed by a UUID"),
    ])
    func aMalformedURIIsRefusedWithAClearReason(uri: String, reason: String) throws {
        let model = try MusicModel.make()
        let error = parseError(uri, model: model)
        #expect(error == .invalidObjectURI(uri, reason: reason))
        #expect(error?.description == "'\(uri)' is not an object ID: \(reason)")
    }

    @Test func aVeryLongURIIsCutShortInTheMessage() throws {
        let model = try MusicModel.make()
        let uri = "http://" + String(repeating: "x", count: 10_000)
        let message = parseError(uri, model: model)?.description ?? ""
        #expect(message.count < 300)
    }

    // MARK: - Equality and hashing

    @Test func idsInOneHierarchyAreEqualWhateverEntityTheyName() throws {
        let model = try MusicModel.make()
        let viaAnimal = try ObjectID(uri: "graph://S/Animal/7", model: model)
        let viaDog = try ObjectID(uri: "graph://S/Dog/7", model: model)
        #expect(viaAnimal == viaDog)
        #expect(viaAnimal.hashValue == viaDog.hashValue)
        #expect(Set([viaAnimal, viaDog]).count == 1)
        #expect([viaDog: "Rex"][viaAnimal] == "Rex")
        // The entity a parsed ID carries is the one its URI names.
        #expect(viaAnimal.entityName == "Animal")
        #expect(viaDog.entityName == "Dog")
    }

    @Test func idsDifferWhenStoreReferenceOrHierarchyDiffers() throws {
        let model = try MusicModel.make()
        let base = try ObjectID(uri: "graph://S/Song/7", model: model)
        #expect(base != (try ObjectID(uri: "graph://T/Song/7", model: model)))
        #expect(base != (try ObjectID(uri: "graph://S/Song/8", model: model)))
        #expect(base != (try ObjectID(uri: "graph://S/Album/7", model: model)))
        #expect(base != ObjectID(entity: try entity("Song", in: model), storeIdentifier: "S", reference: .string("7")))
        #expect(base != ObjectID.temporary(for: try entity("Song", in: model)))
        #expect(base == ObjectID(entity: try entity("Song", in: model), storeIdentifier: "S", reference: .int(7)))
    }

    @Test func hashingIsConsistentWithEquality() throws {
        let model = try MusicModel.make()
        var ids: [ObjectID] = []
        for store in ["S", "T"] {
            for name in ["Song", "Album", "Animal", "Dog", "Cat"] {
                for reference in [ReferenceObject.int(1), .int(2), .string("1"), .string("a b")] {
                    ids.append(ObjectID(entity: try entity(name, in: model), storeIdentifier: store, reference: reference))
                }
            }
        }
        ids.append(ObjectID.temporary(for: try entity("Dog", in: model)))
        ids.append(ObjectID.temporary(for: try entity("Dog", in: model)))
        for a in ids {
            for b in ids where a == b {
                #expect(a.hashValue == b.hashValue, "\(a) == \(b)")
            }
        }
        // Animal, Dog and Cat share one reference space: 2 stores x 4 references x 3 hierarchies,
        // plus the two temporary IDs.
        #expect(Set(ids).count == 2 * 4 * 3 + 2)
    }

    @Test func idsFromTwoLoadsOfTheSameModelAreEqual() throws {
        let first = try MusicModel.make()
        let second = try MusicModel.make()
        let a = try ObjectID(uri: "graph://S/Dog/7", model: first)
        let b = try ObjectID(uri: "graph://S/Animal/7", model: second)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
    }

    @Test("IDs of one entity in one store share one home; a maker's IDs are the store's")
    func idsOfOneEntityInOneStoreShareTheirHome() throws {
        let model = try MusicModel.make()
        let song = try entity("Song", in: model)
        let seven = ObjectID(entity: song, storeIdentifier: store, reference: .int(7))
        let named = ObjectID(entity: song, storeIdentifier: store, reference: .string("eight"))
        let album = ObjectID(entity: try entity("Album", in: model), storeIdentifier: store, reference: .int(7))
        let elsewhere = ObjectID(entity: song, storeIdentifier: "another", reference: .int(7))
        #expect(seven.storage.home === named.storage.home)
        #expect(seven.storage.home !== album.storage.home)
        #expect(seven.storage.home !== elsewhere.storage.home)
        #expect(seven.storage.entity === song && seven.storage.store?.identifier == store)
        let first = ObjectID.temporary(for: song), second = ObjectID.temporary(for: song)
        #expect(first.storage.home === second.storage.home && first.storage.store == nil && first != second)
        let maker = ObjectID.Maker(home: seven.storage.home)
        #expect(maker.entity === song)
        #expect(maker.id(7) == seven && maker.id(7).hashValue == seven.hashValue)
        #expect(maker.id(7).uriRepresentation == "graph://\(store)/Song/7")
        #expect(maker.id(8) != seven)
    }

    // MARK: - The ASCII fast path of parsing

    @Test func aURIWithCharactersBeyondASCIIParsesAsItDidByCharacters() throws {
        let model = try MusicModel.make()
        // A reference with non-ASCII characters (percent-encoded or not) keeps working.
        let id = try ObjectID(uri: "graph://\(store)/Song/caf%C3%A9", model: model)
        #expect(id.referenceObject == .string("café"))
        #expect(try ObjectID(uri: "graph://\(store)/Song/café", model: model).referenceObject == .string("café"))
        // A `/` followed by a combining mark is one character, not a separator: the URI has
        // one `/` fewer than the three parts need, as before.
        #expect(parseError("graph://\(store)/Song/\u{301}7", model: model)?.description.contains("expected graph://<store>/<Entity>/<reference>") == true)
        #expect(parseError("graph://\(store)/Song\u{301}/7", model: model)?.description.contains("no entity") == true)
    }

    @Test func anASCIIURIIsCutAtEverySlash() throws {
        let model = try MusicModel.make()
        #expect(try ObjectID(uri: "graph://\(store)/Song/7", model: model).referenceObject == .int(7))
        for uri in ["graph://\(store)/Song/7/8", "graph://\(store)/Song", "graph://\(store)", "graph://", "graph:///Song/1/", "graph://a/b/c/d/e/f"] {
            let error = parseError(uri, model: model)
            #expect(error?.description.contains("expected graph://<store>/<Entity>/<reference>") == true, "\(uri): \(String(describing: error))")
        }
        // Empty parts are parts: an empty store is a temporary ID, an empty entity is unknown.
        #expect(parseError("graph:///Song/1", model: model)?.description.contains("temporary") == true)
        #expect(parseError("graph://\(store)//1", model: model)?.description.contains("no entity ''") == true)
    }
}
