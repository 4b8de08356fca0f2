import Foundation
import Testing
@testable import GraphCore

/// NaN is one value for the object graph: set again, it is no change.
@Suite struct NaNValueTests {
    @Test func aValueHoldingNaNEqualsItselfAndHashesAlike() {
        #expect(Value.double(.nan) == .double(.nan))
        #expect(Value.double(.nan) == .double(-Double.nan))
        #expect(Value.double(.nan) != .double(1))
        #expect(Set<Value>([.double(.nan), .double(.nan), .double(0), .double(-0.0)]).count == 2)
        #expect(Value.decimal(.nan) == .decimal(.nan))
    }

    @Test func anObjectHoldingNaNIsNotChangedBySettingNaNAgainAndKeepsItsVersion() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song", values: ["title": "So What", "rating": .double(.nan)])
        try context.save()
        #expect(song.version == 1)

        try song.setValue(.double(.nan), forKey: "rating")
        #expect(try song.changedKeys() == [])
        try song.setValue(.double(4), forKey: "rating")
        try song.setValue(.double(.nan), forKey: "rating")
        #expect(try song.changedKeys() == [])
        try context.save()
        #expect(song.version == 1)
    }
}
