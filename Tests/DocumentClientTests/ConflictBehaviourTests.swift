import Foundation
import GraphCore
import Testing

/// Optimistic locking between two contexts that both read an object: the first save wins, the
/// second throws a conflict naming the object and both versions, unless a merge policy merges
/// property by property. Over the network the versions are the server's: the second context is
/// on a second coordinator, which learns of the first save only from the server.
@Suite struct ConflictBehaviourTests {
    /// A saved song (version 1) read by both the fixture's context and a second one.
    private struct TwoReaders {
        let store: StoreFixture
        let id: ObjectID
        let first: ManagedObject
        /// A context of its own (over the network: on a coordinator of its own).
        let secondContext: ObjectContext
        let second: ManagedObject

        init(_ kind: StoreKind) throws {
            store = try StoreFixture(kind)
            let song = try store.context.insert("Song", values: ["title": "Blue", "plays": 1])
            try store.context.save()
            id = song.objectID
            first = song
            secondContext = try store.secondContext()
            second = try secondContext.existingObject(with: id)
        }

        var firstContext: ObjectContext { store.context }

        /// The song's title and version as a context that has read nothing sees them.
        func stored() throws -> (title: String, version: Int64) {
            let reader = try store.secondContext()
            let song = try reader.existingObject(with: id)
            return (try song.get("title"), song.version)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func theSecondSaveThrowsAConflictWithBothVersionsAndTheFirstStays(kind: StoreKind) throws {
        let readers = try TwoReaders(kind)
        try readers.first.set("title", "First")
        try readers.firstContext.save()
        #expect(readers.first.version == 2)

        let secondContext = readers.secondContext
        try readers.second.set("title", "Second")
        let error = #expect(throws: GraphError.self) { try secondContext.save() }
        #expect(conflicts(of: error) == [Conflict(objectID: readers.id, expectedVersion: 1, currentVersion: 2)])

        // The store keeps the first save; the second context keeps its unsaved change.
        #expect(try readers.stored() == ("First", 2))
        #expect(readers.second.isUpdated)
        #expect(try readers.second.string("title") == "Second")
        #expect(readers.second.version == 1)

        // Once refreshed with its change kept, the second context saves over the first.
        try secondContext.refresh(readers.second, mergeChanges: true)
        try secondContext.save()
        #expect(readers.second.version == 3)
        #expect(try readers.stored() == ("Second", 3))
    }

    @Test(arguments: StoreKind.allCases, [MergePolicy.storeTrumps, .objectTrumps])
    func aMergePolicyMergesPropertyByProperty(kind: StoreKind, policy: MergePolicy) throws {
        let readers = try TwoReaders(kind)
        try readers.first.set("title", "Store's title")
        try readers.firstContext.save()

        let secondContext = readers.secondContext
        secondContext.mergePolicy = policy
        try readers.second.set("title", "Our title")  // both changed the title: the policy decides
        try readers.second.set("plays", Int64(42))    // only we changed plays: ours stays
        try secondContext.save()

        let title = policy == .storeTrumps ? "Store's title" : "Our title"
        #expect(try readers.second.string("title") == title)
        #expect(try readers.second.get("plays") as Int64 == 42)
        #expect(readers.second.version == 3)
        #expect(!secondContext.hasChanges)

        // The merged object is what the store holds, as the first context sees after refreshing.
        try readers.firstContext.refresh(readers.first, mergeChanges: false)
        #expect(try readers.first.string("title") == title)
        #expect(try readers.first.get("plays") as Int64 == 42)
        #expect(readers.first.version == 3)
    }

    @Test(arguments: StoreKind.allCases)
    func anObjectDeletedMeanwhileConflictsWithNoCurrentVersion(kind: StoreKind) throws {
        let readers = try TwoReaders(kind)
        try readers.firstContext.delete(readers.first)
        try readers.firstContext.save()

        let secondContext = readers.secondContext
        try readers.second.set("title", "Too late")
        let error = #expect(throws: GraphError.self) { try secondContext.save() }
        #expect(conflicts(of: error) == [Conflict(objectID: readers.id, expectedVersion: 1, currentVersion: nil)])
        #expect(try readers.store.freshContext().count("Song") == 0)

        // No policy can merge a change into an object that is gone.
        secondContext.mergePolicy = .storeTrumps
        let again = #expect(throws: GraphError.self) { try secondContext.save() }
        #expect(conflicts(of: again)?.map(\.objectID) == [readers.id])
        #expect(try readers.store.freshContext().count("Song") == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func deletingAnObjectDeletedMeanwhileConflictsUnlessAPolicyAcceptsIt(kind: StoreKind) throws {
        let readers = try TwoReaders(kind)
        try readers.firstContext.delete(readers.first)
        try readers.firstContext.save()

        let secondContext = readers.secondContext
        try secondContext.delete(readers.second)
        let error = #expect(throws: GraphError.self) { try secondContext.save() }
        #expect(conflicts(of: error) == [Conflict(objectID: readers.id, expectedVersion: 1, currentVersion: nil)])

        // The deletion is already done in the store: a merge policy accepts it.
        secondContext.mergePolicy = .objectTrumps
        try secondContext.save()
        #expect(!secondContext.hasChanges)
        #expect(try readers.store.freshContext().count("Song") == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func aConflictOnOneObjectSavesNoneOfTheOthers(kind: StoreKind) throws {
        let readers = try TwoReaders(kind)
        let secondContext = readers.secondContext
        let bystander = try readers.firstContext.insert("Song", values: ["title": "Bystander"])
        try readers.firstContext.save()
        let theirBystander = try secondContext.existingObject(with: bystander.objectID)

        try readers.first.set("plays", Int64(2))
        try readers.firstContext.save()

        try readers.second.set("plays", Int64(3))
        try theirBystander.set("plays", Int64(3))
        let inserted = try secondContext.insert("Song", values: ["title": "Inserted"])
        let error = #expect(throws: GraphError.self) { try secondContext.save() }
        #expect(conflicts(of: error) == [Conflict(objectID: readers.id, expectedVersion: 1, currentVersion: 2)])

        let fresh = readers.store.freshContext()
        #expect(try fresh.existingObject(with: bystander.objectID).get("plays") as Int64 == 0)
        #expect(try fresh.existingObject(with: bystander.objectID).version == 1)
        #expect(try strings("title", of: fresh.all("Song", sortedBy: "title")) == ["Blue", "Bystander"])
        #expect(inserted.isInserted)
    }
}
