import Foundation
import Testing
import GraphCore

/// An object before a commit, rebuilt from the object after it and the values the commit
/// recorded: attributes put back, an unordered to-many's added targets taken out and removed
/// ones put back, an ordered one spliced back in order.
struct PreviousValuesTests {
    private let model: ObjectModel
    private let shelf: EntityDescription, book: EntityDescription

    init() throws {
        model = try ObjectModel(entities: [
            EntityDescription("Shelf", attributes: [AttributeDescription("label", .string)], relationships: [
                RelationshipDescription("books", destination: "Book", inverse: "shelf", toMany: true, ordered: true),
                RelationshipDescription("readers", destination: "Book", inverse: "readers", toMany: true),
            ]),
            EntityDescription("Book", attributes: [AttributeDescription("title", .string)], relationships: [
                RelationshipDescription("shelf", destination: "Shelf", inverse: "books"),
                RelationshipDescription("readers", destination: "Shelf", inverse: "readers", toMany: true),
            ]),
        ])
        shelf = try #require(model.entity(named: "Shelf"))
        book = try #require(model.entity(named: "Book"))
    }

    private func books(_ references: [Int64]) -> [ObjectID] {
        references.map { ObjectID(entity: book, storeIdentifier: "S", reference: .int($0)) }
    }

    @Test(arguments: [
        ([1, 2, 3], [1, 2, 3, 4]),  // appended
        ([1, 2, 3, 4], [1, 3, 4]),  // removed from the middle
        ([1, 2, 3, 4], [4, 2, 3, 1]),  // first and last swapped
        ([], [5, 6]), ([5, 6], []), ([7, 7, 8], [7, 8]), ([1, 2], [1, 2]),
    ] as [([Int64], [Int64])])
    func aSpliceTurnsTheTargetsAfterBackIntoThoseBefore(before: [Int64], after: [Int64]) throws {
        let splice = PreviousValues.Splice(before: books(before), after: books(after))
        #expect(splice.was.count <= before.count)
        let id = ObjectID(entity: shelf, storeIdentifier: "S", reference: .int(1))
        let previous = PreviousValues(version: 4, splices: [1: splice])
        let afterSnapshot = ObjectSnapshot(objectID: id, version: 5, values: [.string("A"), .objects(books(after)), .objects([])])
        let rebuilt = try #require(previous.snapshot(of: id, after: afterSnapshot))
        #expect(rebuilt.values[1] == .objects(books(before)))
        #expect(rebuilt.version == 4 && rebuilt.values[0] == .string("A"))
    }

    @Test func anAppendRecordsOnlyWhereItWasMade() {
        let splice = PreviousValues.Splice(before: books(Array(1...10_000)), after: books(Array(1...10_001)))
        #expect(splice == PreviousValues.Splice(at: 10_000, replacing: 1, was: []))
    }

    @Test func attributesAndUnorderedTargetsArePutBackAndASpliceThatDoesNotFitReadsAsUnknown() throws {
        let id = ObjectID(entity: shelf, storeIdentifier: "S", reference: .int(1))
        let after = ObjectSnapshot(objectID: id, version: 2, values: [.string("new"), .objects(books([1])), .objects(books([3, 9]))])
        let previous = PreviousValues(version: 1, values: [0: .string("old")],
                                      targets: [2: PreviousValues.TargetChange(added: books([9]), removed: books([4]))])
        let rebuilt = try #require(previous.snapshot(of: id, after: after))
        #expect(rebuilt == ObjectSnapshot(objectID: id, version: 1, values: [.string("old"), .objects(books([1])), .objects(books([3, 4]))]))
        // A deleted object: every value recorded, nothing after it.
        let deleted = PreviousValues(version: 2, values: [0: .string("new")], targets: [2: PreviousValues.TargetChange(removed: books([3]))],
                                     splices: [1: PreviousValues.Splice(at: 0, replacing: 0, was: books([1]))])
        #expect(deleted.snapshot(of: id, after: nil)
            == ObjectSnapshot(objectID: id, version: 2, values: [.string("new"), .objects(books([1])), .objects(books([3]))]))
        let misfit = PreviousValues(version: 1, splices: [1: PreviousValues.Splice(at: 1, replacing: 2, was: [])])
        #expect(misfit.snapshot(of: id, after: after) == nil)
    }
}
