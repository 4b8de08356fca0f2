import Foundation
import Testing
@testable import GraphCore

/// The predicate table (``PredicateTable``): every row evaluated by the store and in a
/// context, and every parsed row printed and parsed back.
@Suite struct PredicateTableTests {
    @Test func theTableHasAtLeastTwoHundredRows() {
        #expect(PredicateTable.all.count >= 200)
    }

    @Test("each row gives its objects or its error", arguments: PredicateTable.all)
    func eachRowGivesItsObjectsOrItsError(_ row: PredicateCase) throws {
        let fixture = try PredicateFixture()
        switch row.outcome {
        case .matches(let expected):
            let predicate = try row.predicate(fixture)
            // Judged by the store's evaluator (a fresh context has no changes)…
            #expect(try fixture.names(row.entity, predicate) == expected, sourceLocation: row.sourceLocation)
            // …and by the context's evaluator, on managed objects.
            let context = fixture.container.newContext()
            let entity = try #require(fixture.container.model.entity(named: row.entity))
            let evaluator = try PredicateEvaluator<ManagedObject>(predicate, entity: entity, resolve: context.relatedObject)
            let key = ["Song", "Album"].contains(row.entity) ? "title" : "name"
            let judged = try context.fetch(FetchRequest(entityName: row.entity)).filter { try evaluator.matches($0) }
            #expect(try judged.map { try $0.get(key) as String }.sorted() == expected, sourceLocation: row.sourceLocation)
        case .error(let expected):
            #expect(throws: expected, sourceLocation: row.sourceLocation) {
                try fixture.names(row.entity, try row.predicate(fixture))
            }
        case .syntaxError(let offset, let text):
            do {
                _ = try row.predicate(fixture)
                Issue.record("parsed without an error", sourceLocation: row.sourceLocation)
            } catch let error as GraphCore.PredicateError {
                guard case .syntax = error else {
                    Issue.record("not a syntax error: \(error)", sourceLocation: row.sourceLocation)
                    return
                }
                #expect(error.offset == offset, sourceLocation: row.sourceLocation)
                #expect(error.description.contains(text), "\(error)", sourceLocation: row.sourceLocation)
            }
        }
    }

    @Test("each parsed row's description parses back to an equal predicate", arguments: PredicateTable.all)
    func eachParsedRowsDescriptionParsesBackToAnEqualPredicate(_ row: PredicateCase) throws {
        let fixture = try PredicateFixture()
        let model = fixture.container.model
        let arguments = row.arguments.map { row.resolve($0, fixture) }
        guard let parsed = try? GraphCore.Predicate(format: row.format, arguments: arguments, model: model) else { return }
        for predicate in [parsed, try row.predicate(fixture)] {
            let text = predicate.description
            let again = try GraphCore.Predicate(format: text, arguments: [], model: model)
            #expect(again == predicate, "\(text)", sourceLocation: row.sourceLocation)
            #expect(again.description == text, sourceLocation: row.sourceLocation)
        }
    }
}
