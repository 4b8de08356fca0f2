// libFuzzer target: the store-file reader (`JSONAtomicStore` loading: yajl events,
// `StoreFileDecoder`, reference resolution, the model check).
//
// The input is a store file of the sample model. It is written to a scratch directory and
// opened as a JSON store. It must either load or fail with an error; when it loads, what
// was loaded must survive a save: saving it, loading that file again and saving again must
// write the same bytes (save → load → save is stable) and keep the number of objects.
//
// The same input also goes to the fast scanner of a large file's ranges (`RangeScanner`,
// which files under 4 MB never reach), as a document and as the elements of an array: what
// it accepts, the strict parser (yajl) must accept with the same events.
import FuzzSupport
import Foundation
import GraphCore
@testable import JSONAtomicStore
import JSONCore

private let model: ObjectModel = {
    JSONAtomicStore.register()
    return FuzzModels.sample()
}()
private let scratch = ScratchDirectory("store-file-fuzz")

/// Opens the store at `url`; nil when it does not load (which is allowed).
private func open(_ url: URL) -> (StoreCoordinator, AtomicStore)? {
    let coordinator = StoreCoordinator(model: model)
    do {
        let store = try coordinator.addPersistentStore(type: JSONAtomicStore.storeType, at: url)
        guard let atomic = store as? AtomicStore else { fuzzFailure("a JSON store is not an atomic store") }
        return (coordinator, atomic)
    } catch {
        let message = "\(error)"
        if message.isEmpty { fuzzFailure("a load error without a message: \(type(of: error))") }
        return nil
    }
}

/// Saves the store and returns the bytes written.
private func saveAndRead(_ store: AtomicStore, _ url: URL, what: String) -> Data {
    do {
        try store.save()
        return try Data(contentsOf: url)
    } catch {
        fuzzFailure("\(what): a store that loaded does not save: \(error)")
    }
}

/// Writes every event down.
private final class EventRecorder: JSONEventHandler {
    var events: [String] = []
    func null() { events.append("null") }
    func bool(_ value: Bool) { events.append("\(value)") }
    func number(_ text: UnsafeRawBufferPointer) { events.append("#" + String(decoding: text, as: UTF8.self)) }
    func string(_ bytes: UnsafeRawBufferPointer) { events.append("s" + bytes.map { String($0) }.joined(separator: ",")) }
    func startObject() { events.append("{") }
    func key(_ bytes: UnsafeRawBufferPointer) { events.append("k" + bytes.map { String($0) }.joined(separator: ",")) }
    func endObject() { events.append("}") }
    func startArray() { events.append("[") }
    func endArray() { events.append("]") }
}

/// Fails when the range scanner accepts `input` (as a document, or as array elements) and the
/// strict parser refuses it or reads other events.
private func checkRangeScanner(_ input: [UInt8]) {
    for asElements in [false, true] {
        let scanned = EventRecorder()
        var scanner = RangeScanner(handler: scanned)
        defer { scanner.deallocate() }
        let accepted: Bool
        do {
            accepted = try input.withUnsafeBytes { asElements ? try scanner.scanElements($0) : try scanner.scanDocument($0) }
        } catch {
            fuzzFailure("the range scanner's recorder threw: \(error)")
        }
        guard accepted else { continue }
        let parsed = EventRecorder()
        let text = asElements ? Array("[".utf8) + input + Array("]".utf8) : input
        do {
            try text.withUnsafeBytes { try JSONEventParser.parse($0, handler: parsed) }
        } catch {
            fuzzFailure("the range scanner accepts what the strict parser refuses (\(asElements ? "elements" : "document")): \(error)")
        }
        if parsed.events != scanned.events {
            fuzzFailure("the range scanner reads other events than the strict parser (\(asElements ? "elements" : "document"))")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func storeFileFuzzTest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    checkRangeScanner(input)
    defer { scratch.empty() }
    let url = scratch.write(input, to: "store.json")
    guard let (coordinator, store) = open(url) else { return 0 }
    let count = store.cacheNodes().count
    let first = saveAndRead(store, url, what: "the input")
    coordinator.remove(store)

    guard let (again, reloaded) = open(url) else {
        fuzzFailure("the file saved from a loaded store does not load:\n\(String(decoding: first, as: UTF8.self))")
    }
    if reloaded.cacheNodes().count != count {
        fuzzFailure("the input held \(count) objects, the file saved from it \(reloaded.cacheNodes().count)")
    }
    let second = saveAndRead(reloaded, url, what: "the saved file")
    again.remove(reloaded)
    if first != second {
        fuzzFailure("save → load → save changes the file:\n\(String(decoding: first, as: UTF8.self))\n\(String(decoding: second, as: UTF8.self))")
    }
    return 0
}

@main
enum StoreFileFuzzer {
    static func main() {
        runFuzzer(storeFileFuzzTest)
    }
}
