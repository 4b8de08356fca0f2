import Foundation
import ServerTestSupport
import Testing

/// Every method of docs/PROTOCOL.md, called on a real server over a real socket.
@Suite struct MethodTests {
    @Test func helloNamesTheServerTheProtocolTheStoreAndTheModel() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let hello = try client.result("hello", ["client": "MethodTests"])
        #expect(hello["server"].string == "docserver")
        #expect(hello["version"].string?.isEmpty == false)
        #expect(hello["protocol"].int == 1)
        #expect(hello.keys == ["modelHash", "protocol", "seq", "server", "storeUUID", "version"])
        #expect(hello["seq"].int == 0)  // nothing committed yet
        let storeUUID = try #require(hello["storeUUID"].string)
        #expect(UUID(uuidString: storeUUID) != nil)
        let modelHash = try #require(hello["modelHash"].string)
        #expect(modelHash.count == 64 && modelHash.allSatisfy(\.isHexDigit), "modelHash: \(modelHash)")

        // The same UUID names the store's objects and is written in the store file.
        let data = try SampleData.insert(through: client)
        #expect(data["s1"].hasPrefix("graph://\(storeUUID)/Song/"))
        let file = try StoreFileContents(server.storeURL)
        #expect(file.storeUUID == storeUUID)
        #expect(file.json["metadata"]["modelVersionHash"].string == modelHash)
        try server.stop()
    }

    @Test func modelAnswersTheSampleModel() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let model = try client.result("model")
        let sampleURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/docserver/Resources/sample.model.json")
        let sample = try JSON(contentsOf: sampleURL)
        let served = try #require(model["entities"].array)
        let expected = try #require(sample["entities"].array)
        #expect(served.map { $0["name"].string } == expected.map { $0["name"].string })
        // Everything the model file says, the served model says too (it may spell out defaults).
        for (entity, expectedEntity) in zip(served, expected) {
            for kind in ["attributes", "relationships"] {
                let properties = entity[kind].array ?? [], expectedProperties = expectedEntity[kind].array ?? []
                #expect(properties.map { $0["name"].string } == expectedProperties.map { $0["name"].string },
                        "\(expectedEntity["name"]) \(kind)")
                for (property, expectedProperty) in zip(properties, expectedProperties) {
                    for (key, value) in expectedProperty.object ?? [:] {
                        #expect(property[key] == value, "\(expectedEntity["name"]).\(expectedProperty["name"]) \(key)")
                    }
                }
            }
        }
        try server.stop()
    }

    @Test func modelAnswersTheModelFileGivenWithModelOption() throws {
        let directory = try TemporaryDirectory()
        let modelURL = directory.file("notes.model.json")
        try Data(#"{"entities":[{"name":"Note","attributes":[{"name":"text","type":"string"},{"name":"stars","type":"int16","default":3}]}]}"#.utf8)
            .write(to: modelURL)
        let server = try ServerProcess(in: directory, arguments: ["--model", modelURL.path])
        let client = try server.connect()
        let model = try client.result("model")
        #expect(model["entities"].array?.map { $0["name"].string } == ["Note"])
        #expect(model["entities"][0]["attributes"].array?.map { $0["name"].string } == ["text", "stars"])
        let saved = try client.result("save", ["insert": [["id": "n", "entity": "Note", "values": ["text": "hi"]]]])
        let id = try #require(saved["ids"]["n"].string)
        let note = try client.result("get", ["ids": [id]])["objects"][0]
        #expect(note["values"] == JSON(["text": "hi", "stars": 3]))
        try server.stop()
    }

    @Test func pingAnswersPong() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        #expect(try client.exchange(#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#) == #"{"jsonrpc":"2.0","id":"p","result":"pong"}"#)
        #expect(try client.exchange(#"{"jsonrpc":"2.0","id":null,"method":"ping","params":{}}"#) == #"{"jsonrpc":"2.0","id":null,"result":"pong"}"#)
        try server.stop()
    }

    @Test func fetchFiltersWithAPredicateAndItsArguments() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let data = try SampleData.insert(through: client)

        func titles(_ entity: String, _ predicate: String, _ arguments: [Any]) throws -> Set<String> {
            let result = try client.result("fetch", ["entity": entity, "predicate": predicate, "arguments": arguments])
            return Set((result["objects"].array ?? []).compactMap { $0["values"]["title"].string })
        }
        #expect(try titles("Song", "plays > %d", [5]) == ["So What", "Blue in Green", "alice in Wonderland"])
        #expect(try titles("Song", "title BEGINSWITH[c] %@", ["a"]) == ["all Blues", "alice in Wonderland"])
        #expect(try titles("Song", "title IN %@", [["So What", "Gloria's Step", "Nardis"]]) == ["So What", "Gloria's Step"])
        #expect(try titles("Song", "album == %@ AND plays >= %d", [["id": data["b1"]], 3]) == ["So What", "Freddie Freeloader", "Blue in Green"])
        #expect(try titles("Song", "album.artist.name == %@", ["Bill Evans"]) == ["Gloria's Step", "alice in Wonderland"])
        #expect(try titles("Album", "released > %@", [["date": "1960-01-01T00:00:00Z"]]) == ["Sunday at the Village Vanguard"])
        #expect(try titles("Album", "released < %@", [["date": "1960-01-01T02:00:00+02:00"]]) == ["Kind of Blue"])
        #expect(try titles("Album", "price == %@", [["decimal": "9.99"]]) == ["Kind of Blue"])
        #expect(try titles("Album", "%K == %@", ["title", "Kind of Blue"]) == ["Kind of Blue"])
        #expect(try titles("Song", "plays > 100", []) == [])
        try server.stop()
    }

    @Test func fetchSortsAscendingDescendingAndCaseInsensitively() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        _ = try SampleData.insert(through: client)

        func values(_ sort: [[String: Any]], _ key: String = "title") throws -> [JSON] {
            let result = try client.result("fetch", ["entity": "Song", "sort": sort])
            return (result["objects"].array ?? []).map { $0["values"][key] }
        }
        #expect(try values([["key": "plays", "ascending": false]], "plays").compactMap(\.int) == [12, 9, 7, 5, 3, 0])
        #expect(try values([["key": "plays"]], "plays").compactMap(\.int) == [0, 3, 5, 7, 9, 12])
        #expect(try values([["key": "title", "caseInsensitive": true]]).compactMap(\.string)
                == ["alice in Wonderland", "all Blues", "Blue in Green", "Freddie Freeloader", "Gloria's Step", "So What"])
        #expect(try values([["key": "title", "ascending": false, "caseInsensitive": true]]).compactMap(\.string)
                == ["So What", "Gloria's Step", "Freddie Freeloader", "Blue in Green", "all Blues", "alice in Wonderland"])
        // Case-sensitive: upper case before lower case.
        #expect(try values([["key": "title"]]).compactMap(\.string)
                == ["Blue in Green", "Freddie Freeloader", "Gloria's Step", "So What", "alice in Wonderland", "all Blues"])
        // A key path through a to-one relationship, then a second key.
        #expect(try values([["key": "album.title", "ascending": false], ["key": "plays"]]).compactMap(\.string)
                == ["Gloria's Step", "alice in Wonderland", "all Blues", "Freddie Freeloader", "So What", "Blue in Green"])
        try server.stop()
    }

    @Test func fetchPagesWithLimitAndOffset() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let data = try SampleData.insert(through: client)

        func plays(_ params: [String: Any]) throws -> [Int] {
            var params = params
            params["entity"] = "Song"
            params["sort"] = [["key": "plays"]]
            return (try client.result("fetch", params)["objects"].array ?? []).compactMap { $0["values"]["plays"].int }
        }
        #expect(try plays(["limit": 2]) == [0, 3])
        #expect(try plays(["limit": 2, "offset": 1]) == [3, 5])
        #expect(try plays(["offset": 4]) == [9, 12])
        #expect(try plays(["offset": 6]) == [])
        #expect(try plays(["limit": 0]) == [0, 3, 5, 7, 9, 12])
        // Without sort: a stable order (entity, then reference) that pages fit together in.
        let all = try client.result("fetch", ["entity": "Song", "resultType": "ids"])["ids"].strings ?? []
        #expect(all == SampleData.songs.map { data[$0.id] })
        var pages: [String] = []
        for offset in stride(from: 0, to: 6, by: 4) {
            pages += try client.result("fetch", ["entity": "Song", "resultType": "ids", "limit": 4, "offset": offset])["ids"].strings ?? []
        }
        #expect(pages == all)
        try server.stop()
    }

    @Test func fetchReturnsObjectsIDsOrACount() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let data = try SampleData.insert(through: client)

        let objects = try #require(try client.result("fetch", ["entity": "Song", "predicate": "title == %@", "arguments": ["So What"]])["objects"].array)
        #expect(objects.count == 1)
        let song = try #require(objects.first)
        #expect(song == JSON([
            "id": data["s1"], "entity": "Song", "version": 1,
            "values": ["title": "So What", "plays": 7, "rating": NSNull(), "uid": NSNull(), "album": data["b1"], "tags": [String]()],
        ] as [String: Any]))

        let ids = try client.result("fetch", ["entity": "Song", "predicate": "plays < 5", "resultType": "ids"])
        #expect(ids.keys == ["ids"])
        #expect(Set(ids["ids"].strings ?? []) == [data["s2"], data["s4"]])

        #expect(try client.result("fetch", ["entity": "Song", "resultType": "count"]) == JSON(["count": 6]))
        #expect(try client.result("fetch", ["entity": "Song", "predicate": "plays > 5", "resultType": "count"]) == JSON(["count": 3]))
        #expect(try client.result("fetch", ["entity": "Tag", "resultType": "count"]) == JSON(["count": 0]))
        #expect(try client.result("fetch", ["entity": "Album", "resultType": "objects"])["objects"].count == 2)
        try server.stop()
    }

    @Test func valuesAreReadLenientlyAndWrittenAsInTheStoreFile() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let saved = try client.result("save", ["insert": [
            ["id": "b", "entity": "Album", "values": ["title": "X", "cover": "AAEC/w==", "price": 12,
                                                      "released": "2024-05-01T14:30:00.25+02:00"]],
            ["id": "s", "entity": "Song", "values": ["title": "Y", "uid": "6B3A0C2E-5D1F-4E8A-9C7B-1F2E3D4C5B6A",
                                                     "rating": "NaN", "album": "b"]],
            ["id": "t", "entity": "Song", "values": ["title": "Z", "rating": 2, "plays": 9_007_199_254_740_993 as Int64]],
        ]])
        let ids = try #require(saved["ids"].stringValues)
        let objects = try client.result("get", ["ids": [ids["b"] ?? "", ids["s"] ?? "", ids["t"] ?? ""]])["objects"]
        #expect(objects[0]["values"]["cover"].string == "AAEC/w==")
        #expect(objects[0]["values"]["price"].string == "12")
        #expect(objects[0]["values"]["released"].string == "2024-05-01T12:30:00.250Z")
        #expect(objects[1]["values"]["uid"].string?.uppercased() == "6B3A0C2E-5D1F-4E8A-9C7B-1F2E3D4C5B6A")
        #expect(objects[1]["values"]["rating"].string == "NaN")
        #expect(objects[2]["values"]["rating"].double == 2)
        // Integers beyond 2^53 survive (checked on the raw line: Foundation reads numbers as doubles).
        let line = try client.exchange(#"{"jsonrpc":"2.0","id":1,"method":"get","params":{"ids":["\#(ids["t"] ?? "")"]}}"#)
        #expect(line.contains(#""plays":9007199254740993"#), "\(line)")

        func count(_ entity: String, _ predicate: String, _ arguments: [Any]) throws -> Int? {
            try client.result("fetch", ["entity": entity, "predicate": predicate, "arguments": arguments, "resultType": "count"])["count"].int
        }
        #expect(try count("Song", "uid == %@", [["uuid": "6b3a0c2e-5d1f-4e8a-9c7b-1f2e3d4c5b6a"]]) == 1)
        #expect(try count("Album", "cover == %@", [["binary": "AAEC/w=="]]) == 1)
        #expect(try count("Album", "price == %@", [["decimal": "12.00"]]) == 1)
        #expect(try count("Album", "released == %@", [["date": "2024-05-01T12:30:00.250Z"]]) == 1)
        #expect(try count("Song", "album == %@", [["id": ids["b"] ?? ""]]) == 1)
        #expect(try count("Song", "album == nil", []) == 1)
        try server.stop()
    }

    @Test func getAnswersEachIDInPlaceAndListsTheMissingOnes() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let data = try SampleData.insert(through: client)
        let storeUUID = try #require(try client.result("hello")["storeUUID"].string)
        let never = "graph://\(storeUUID)/Song/9999"

        let result = try client.result("get", ["ids": [data["s1"], never, data["b1"]]])
        #expect(result.keys == ["missing", "objects"])
        #expect(result["objects"].count == 3)
        #expect(result["objects"][0]["id"].string == data["s1"])
        #expect(result["objects"][0]["values"]["title"].string == "So What")
        #expect(result["objects"][1].isNull)
        #expect(result["objects"][2]["entity"].string == "Album")
        #expect(result["objects"][2]["values"]["songs"].strings == ["s1", "s2", "s3", "s4"].map { data[$0] })
        #expect(result["objects"][2]["values"]["price"].string == "9.99")
        #expect(result["objects"][2]["values"]["released"].string == "1959-08-17T00:00:00.000Z")
        #expect(result["missing"].strings == [never])

        // A deleted object is missing too.
        _ = try client.result("save", ["delete": [["id": data["s2"], "version": 1]]])
        let after = try client.result("get", ["ids": [data["s2"], data["s3"]]])
        #expect(after["objects"][0].isNull)
        #expect(after["objects"][1]["id"].string == data["s3"])
        #expect(after["missing"].strings == [data["s2"]])
        #expect(try client.result("get", ["ids": [String]()]) == JSON(["objects": [Any](), "missing": [Any]()]))
        try server.stop()
    }

    @Test func saveInsertsObjectsThatReferToEachOtherByTemporaryIDs() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let result = try client.result("save", SampleData.insertParams)
        let ids = try #require(result["ids"].stringValues)
        #expect(Set(ids.keys) == ["a1", "a2", "b1", "b2", "s1", "s2", "s3", "s4", "s5", "s6"])
        #expect(Set(ids.values).count == 10)
        #expect(ids.values.allSatisfy { $0.hasPrefix("graph://") })
        #expect(ids["b1"]?.contains("/Album/") == true && ids["s1"]?.contains("/Song/") == true)
        #expect(result["versions"] == JSON(Dictionary(uniqueKeysWithValues: ids.values.map { ($0, 1) })))
        #expect(result["deleted"].count == 0)
        #expect(result["updated"].count == 0)

        let data = SampleData(ids: ids)
        let objects = try client.result("get", ["ids": [data["a1"], data["b1"], data["s3"]]])["objects"]
        #expect(objects[0]["values"]["albums"].strings == [data["b1"]])
        #expect(objects[0]["values"]["country"].string == "US")
        #expect(objects[1]["values"]["artist"].string == data["a1"])
        #expect(objects[1]["values"]["songs"].strings == ["s1", "s2", "s3", "s4"].map { data[$0] })
        #expect(objects[2]["values"]["album"].string == data["b1"])
        // A property left out gets the model's default.
        let tagged = try client.result("save", ["insert": [["id": "t", "entity": "Song", "values": ["title": "Nardis"]]]])
        let nardis = try client.result("get", ["ids": [tagged["ids"]["t"].string ?? ""]])["objects"][0]["values"]
        #expect(nardis["plays"].int == 0)
        #expect(nardis["album"].isNull)
        try server.stop()
    }

    @Test func saveUpdatesAnObjectAtItsVersionAndReportsInverseChanges() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let data = try SampleData.insert(through: client)

        let plays = try client.result("save", ["update": [["id": data["s1"], "version": 1, "values": ["plays": 8, "rating": 4.5]]]])
        #expect(plays["versions"] == JSON([data["s1"]: 2]))
        #expect(plays["updated"].count == 0)
        #expect(plays["ids"].count == 0)
        let song = try client.result("get", ["ids": [data["s1"]]])["objects"][0]
        #expect(song["version"].int == 2)
        #expect(song["values"]["plays"].int == 8)
        #expect(song["values"]["rating"].double == 4.5)
        #expect(song["values"]["title"].string == "So What")

        // Moving a song to the other album changes both albums through the inverse.
        let moved = try client.result("save", ["update": [["id": data["s1"], "version": 2, "values": ["album": data["b2"]]]]])
        #expect(Set(moved["updated"].strings ?? []) == [data["b1"], data["b2"]])
        #expect(moved["versions"] == JSON([data["s1"]: 3, data["b1"]: 2, data["b2"]: 2]))
        let albums = try client.result("get", ["ids": [data["b1"], data["b2"]]])["objects"]
        #expect(albums[0]["values"]["songs"].strings == ["s2", "s3", "s4"].map { data[$0] })
        #expect(albums[1]["values"]["songs"].strings == ["s5", "s6", "s1"].map { data[$0] })
        #expect(albums[0]["version"].int == 2)

        // A to-many value replaces the whole list; the songs' to-one inverses follow.
        let reordered = try client.result("save", ["update": [["id": data["b2"], "version": 2, "values": ["songs": [data["s6"], data["s5"]]]]]])
        #expect(Set(reordered["updated"].strings ?? []) == [data["s1"]])
        let after = try client.result("get", ["ids": [data["b2"], data["s1"]]])["objects"]
        #expect(after[0]["values"]["songs"].strings == [data["s6"], data["s5"]])
        #expect(after[1]["values"]["album"].isNull)
        #expect(after[1]["version"].int == 4)
        try server.stop()
    }

    @Test func saveDeletesWithCascadeAndReportsTheDeletedAndUpdatedObjects() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let data = try SampleData.insert(through: client)

        let result = try client.result("save", ["delete": [["id": data["b1"], "version": 1]]])
        #expect(Set(result["deleted"].strings ?? []) == Set(["b1", "s1", "s2", "s3", "s4"].map { data[$0] }))
        #expect(result["deleted"].count == 5)
        #expect(result["updated"].strings == [data["a1"]])
        #expect(result["versions"] == JSON([data["a1"]: 2]))
        #expect(try client.result("fetch", ["entity": "Song", "resultType": "count"])["count"].int == 2)
        let artist = try client.result("get", ["ids": [data["a1"], data["s1"]]])
        #expect(artist["objects"][0]["values"]["albums"].count == 0)
        #expect(artist["objects"][0]["version"].int == 2)
        #expect(artist["missing"].strings == [data["s1"]])

        // And in the file.
        let file = try StoreFileContents(server.storeURL)
        #expect(file.count("Song") == 2)
        #expect(file.count("Album") == 1)
        try server.stop()
    }

    @Test func saveRefusedByADenyRuleIsAValidationErrorAndChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let data = try SampleData.insert(through: client)
        let before = fileBytes(server.storeURL)

        let response = try client.call("save", ["delete": [["id": data["a1"], "version": 1]]])
        #expect(response["error"]["code"].int == -32002)
        let failure = response["error"]["data"]["failures"][0]
        #expect(failure["id"].string == data["a1"])
        #expect(failure["entity"].string == "Artist")
        #expect(failure["key"].string == "albums")
        #expect(failure["reason"].string?.isEmpty == false)
        let artist = try client.result("get", ["ids": [data["a1"]]])
        #expect(artist["objects"][0]["version"].int == 1)
        #expect(artist["objects"][0]["values"]["albums"].strings == [data["b1"]])
        #expect(fileBytes(server.storeURL) == before)

        // Once the album is gone, the artist may go.
        _ = try client.result("save", ["delete": [["id": data["b1"], "version": 1]]])
        let deleted = try client.result("save", ["delete": [["id": data["a1"], "version": 2]]])
        #expect(deleted["deleted"].strings == [data["a1"]])
        try server.stop()
    }
}
