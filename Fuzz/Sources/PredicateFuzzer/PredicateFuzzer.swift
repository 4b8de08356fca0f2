// libFuzzer target: the predicate language (lexer, parser, compiler, evaluator).
//
// The input is a predicate format string, optionally preceded by an entity name on a line
// of its own (`Album\ntitle BEGINSWITH "Blue"`; Song without it). It is parsed with a fixed
// list of arguments (for %K, %@, %d, %f …) against the model of the predicate tests, its
// variables bound, and fetched on that model's objects in an in-memory store. It must
// either work or fail with an error; when it works, the objects matching it and those
// matching NOT it must split the entity's objects in two (each object in exactly one), and
// counting must agree with fetching; its description must parse back to the same predicate.
// Through a `PredicateCache` (a server's parse: a template made on a format's second use,
// arguments bound into it), the format gives what a parse gives, with several arguments.
import FuzzSupport
import Foundation
import GraphCore

private struct Setup: @unchecked Sendable {
    let fixture: MusicFixture
    let arguments: [PredicateValue]
    let variables: [String: PredicateValue]
    let entities: Set<String>

    init() {
        let fixture: MusicFixture
        do {
            fixture = try MusicFixture()
        } catch {
            fuzzFailure("the predicate fixture cannot be built: \(error)")
        }
        self.fixture = fixture
        let object = { (name: String) -> PredicateValue in .value(fixture.objects[name].map(Value.object) ?? .null) }
        arguments = [
            .value(.string("title")), .value(.string("Blue")), .value(.int(20)), .value(.double(4.5)),
            object("So What"), .array([object("Kind of Blue"), object("Blue Train album")]), .value(.null),
            .value(.date(Date(timeIntervalSince1970: -350_000_000))), .value(.bool(true)), .value(.string("name")),
            .array([.value(.int(5)), .value(.int(50))]), .value(.string("[a-z]+")),
            // The 64-bit edges: 2^63 and its neighbours as doubles, the integer bounds, NaN, ±∞, -0.
            .value(.double(9_223_372_036_854_775_808.0)), .value(.double(-9_223_372_036_854_775_808.0)),
            .value(.double(9_223_372_036_854_775_808.0.nextUp)), .value(.double(9_223_372_036_854_775_808.0.nextDown)),
            .value(.int(.max)), .value(.int(.min)), .value(.double(.nan)), .value(.double(.infinity)),
            .value(.double(-.infinity)), .value(.double(-0.0)),
        ]
        variables = ["X": .value(.int(10)), "S": .value(.string("Blue")), "O": object("So What"),
                     "LIST": .array([.value(.string("So What")), .value(.string("Naïma"))])]
        entities = Set(fixture.container.model.entities.map(\.name))
    }
}

private let setup = Setup()

/// The format through a cache, with the arguments it takes from the list rotated four ways
/// (a template made on the second), gives the predicate or the error a parse gives. A cache
/// per input: one kept to the end of the run would be reported as a leak (LeakSanitizer
/// does not follow the enum payloads whose spare bits hold a case).
private func checkTheCacheAgreesWithAParse(_ format: String) {
    let model = setup.fixture.container.model
    let predicates = PredicateCache(model: model)
    var used = setup.arguments.count
    do {
        _ = try GraphCore.Predicate(format: format, arguments: setup.arguments, model: model)
    } catch GraphCore.PredicateError.unusedArguments(let count, _) {
        used = count
    } catch {}
    func outcome(_ body: () throws -> GraphCore.Predicate) -> String {
        do { return "predicate \(try body())" } catch { return "error \(error)" }
    }
    for rotation in 0..<4 {
        let arguments = Array((setup.arguments[rotation...] + setup.arguments[..<rotation]).prefix(used))
        let cached = outcome { try predicates.predicate(format: format, arguments: arguments) }
        let parsed = outcome { try GraphCore.Predicate(format: format, arguments: arguments, model: model) }
        if cached != parsed { fuzzFailure("\(format) with the arguments rotated by \(rotation): the cache gives \(cached), a parse \(parsed)") }
    }
}

/// The objects fetched, as a set of their ids; nil when the fetch fails (allowed).
private func fetch(_ entity: String, _ predicate: GraphCore.Predicate?) -> Set<ObjectID>? {
    let context = setup.fixture.container.newContext()
    do {
        let objects = try context.fetch(FetchRequest(entityName: entity, predicate: predicate)).map(\.objectID)
        if predicate != nil, let count = try? context.count(for: FetchRequest(entityName: entity, predicate: predicate)),
           count != objects.count {
            fuzzFailure("\(entity) WHERE \(predicate.map { "\($0)" } ?? "-"): count says \(count), fetch found \(objects.count)")
        }
        if Set(objects).count != objects.count { fuzzFailure("a fetch returned an object twice: \(String(describing: predicate))") }
        return Set(objects)
    } catch {
        if "\(error)".isEmpty { fuzzFailure("an error without a message: \(type(of: error))") }
        return nil
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func predicateFuzzTest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    var entity = "Song"
    var format = Substring(text)
    if let newline = text.firstIndex(of: "\n"), setup.entities.contains(String(text[..<newline])) {
        entity = String(text[..<newline])
        format = text[text.index(after: newline)...]
    }
    checkTheCacheAgreesWithAParse(String(format))
    let predicate: GraphCore.Predicate
    do {
        predicate = try GraphCore.Predicate(format: String(format), arguments: setup.arguments, model: setup.fixture.container.model)
            .withSubstitutionVariables(setup.variables)
    } catch {
        if "\(error)".isEmpty { fuzzFailure("a syntax error without a message") }
        return 0
    }
    // The description is what RemoteStore sends to the server: it must parse back to the same predicate.
    let printed = predicate.description
    do {
        let again = try GraphCore.Predicate(format: printed, arguments: [], model: setup.fixture.container.model)
        if again != predicate { fuzzFailure("\(printed) parses back as \(again)") }
    } catch {
        fuzzFailure("the description \(printed) does not parse: \(error)")
    }
    // random() and random(n) give another answer each time they are evaluated.
    if printed.contains("random(") { return 0 }
    guard let matching = fetch(entity, predicate), let all = fetch(entity, nil) else { return 0 }
    guard let notMatching = fetch(entity, GraphCore.Predicate.not(predicate)) else { return 0 }
    if !matching.isDisjoint(with: notMatching) || matching.union(notMatching) != all {
        fuzzFailure("\(entity) WHERE \(predicate): \(matching.count) match, \(notMatching.count) match NOT it, of \(all.count) objects")
    }
    return 0
}

@main
enum PredicateFuzzer {
    static func main() {
        runFuzzer(predicateFuzzTest)
    }
}
