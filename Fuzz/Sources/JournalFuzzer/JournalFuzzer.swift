// libFuzzer target: the journal reader (`JSONAtomicStore` opening = the snapshot, then the
// journal's records: line framing, torn-tail detection, `JournalRecordDecoder`, the replay
// of inserts, updates and deletes, then reference resolution).
//
// The input is a journal (`<store>-journal`) beside the empty store file of the sample
// model. The store must either open or fail with an error; when it opens, a checkpoint must
// fold the journal into the snapshot, and the store must reopen from that snapshot alone
// with the same objects, versions and commit sequence.
//
// The same journal is also opened read in pieces on every core (`JournalPieces`, which
// otherwise starts at 2 MiB): the store must open the same, or fail with the same error.
//
// Record verification (issue 37): when a version 2 journal (the header, then records with
// their CRC-32C) opens, every complete line after the header must verify its checksum, and the
// same journal with one byte of a complete record changed (a byte the input chooses) must be
// refused with a byte offset within the journal: never opened with other objects.
import FuzzSupport
import Foundation
import GraphCore
@testable import JSONAtomicStore

private let model: ObjectModel = {
    JSONAtomicStore.register()
    return FuzzModels.sample()
}()
private let scratch = ScratchDirectory("journal-fuzz")

/// Adds the JSON store at `url` to `coordinator` (no checkpoint while it is open).
private func addStore(at url: URL, to coordinator: StoreCoordinator) throws -> JSONAtomicStore {
    let store = try coordinator.addPersistentStore(
        type: JSONAtomicStore.storeType, at: url,
        options: StoreOptions(values: [JSONAtomicStore.journalCheckpointBytesOption: "0"]))
    guard let json = store as? JSONAtomicStore else { fuzzFailure("a JSON store is not a JSONAtomicStore") }
    return json
}

/// Opens the store at `url`; nil when it does not load (which is allowed).
private func open(_ url: URL) -> (StoreCoordinator, JSONAtomicStore)? {
    let coordinator = StoreCoordinator(model: model)
    do {
        return (coordinator, try addStore(at: url, to: coordinator))
    } catch {
        if "\(error)".isEmpty { fuzzFailure("a load error without a message: \(type(of: error))") }
        return nil
    }
}

/// What opening `url` gives: the objects and commit sequence, or the error's text.
private func outcome(_ url: URL) -> String {
    let coordinator = StoreCoordinator(model: model)
    do {
        let store = try addStore(at: url, to: coordinator)
        defer { coordinator.remove(store) }
        return "opened at \(store.commitSequence): \(summary(store))"
    } catch {
        return "refused: \(error)"
    }
}

/// Opens a copy of the journal read in pieces (as a large journal is) and by one reader: the
/// two must agree (each opens its own copy: opening cuts a torn tail off the file).
private func checkPieces(_ input: [UInt8]) {
    let single = scratch.write(FuzzModels.emptySampleStore, to: "single.json")
    _ = scratch.write(input, to: "single.json-journal")
    let pieced = scratch.write(FuzzModels.emptySampleStore, to: "pieced.json")
    _ = scratch.write(input, to: "pieced.json-journal")
    let one = outcome(single)
    let many = JournalPieces.$minimumPieceBytes.withValue(16) { outcome(pieced) }
    // The messages name their own files: the scratch directory's paths (which no input can
    // guess) are made the same.
    if one.replacingOccurrences(of: single.path, with: pieced.path) != many {
        fuzzFailure("the journal read in pieces and by one reader differ:\n  one reader: \(one)\n  pieces:     \(many)")
    }
}

/// The objects of a store as comparable text: entity, reference, version.
private func summary(_ store: JSONAtomicStore) -> [String] {
    store.cacheNodes().map { "\($0.objectID.entityName) \($0.objectID.referenceObject) v\($0.version)" }.sorted()
}

/// A version 2 journal that opened: every complete record verifies, and one changed byte of a
/// complete record makes it refused with an offset.
private func checkVerification(_ input: [UInt8]) {
    guard input.starts(with: JournalFormat.header), let lastNewline = input.lastIndex(of: 0x0A) else { return }
    let records = JournalFormat.header.count..<(lastNewline + 1)
    var start = records.lowerBound
    while start < records.upperBound, let newline = input[start..<records.upperBound].firstIndex(of: 0x0A) {
        let reason = input[start..<newline].withUnsafeBytes { JournalFormat.verify($0) }
        if let reason { fuzzFailure("a journal opened with a record at byte \(start) that does not verify: \(reason)") }
        start = newline + 1
    }
    let candidates = records.filter { input[$0] != 0x0A }
    guard !candidates.isEmpty else { return }
    let index = candidates[input.reduce(0) { ($0 &* 31 &+ Int($1)) & 0x7FFF_FFFF } % candidates.count]
    var changed = input
    changed[index] ^= 0x01
    let url = scratch.write(FuzzModels.emptySampleStore, to: "changed.json")
    _ = scratch.write(changed, to: "changed.json-journal")
    let coordinator = StoreCoordinator(model: model)
    do {
        let store = try addStore(at: url, to: coordinator)
        coordinator.remove(store)
        fuzzFailure("a journal with byte \(index) of a complete record changed opened (at commit \(store.commitSequence))")
    } catch JSONStoreError.invalidJournal(_, let offset, _) {
        if offset < 0 || offset > changed.count { fuzzFailure("a damaged journal refused at byte \(offset), outside it") }
    } catch {
        fuzzFailure("a journal with byte \(index) of a complete record changed was refused without an offset: \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func journalFuzzTest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    defer { scratch.empty() }
    checkPieces(input)
    let url = scratch.write(FuzzModels.emptySampleStore, to: "store.json")
    _ = scratch.write(input, to: "store.json-journal")
    guard let (coordinator, store) = open(url) else { return 0 }
    let objects = summary(store)
    let sequence = store.commitSequence
    checkVerification(input)
    do {
        try store.checkpoint()
    } catch {
        fuzzFailure("a store whose journal replayed does not checkpoint: \(error)")
    }
    if store.journalByteCount != 0 { fuzzFailure("a checkpoint left \(store.journalByteCount) bytes of journal") }
    coordinator.remove(store)

    guard let (again, reopened) = open(url) else {
        fuzzFailure("the snapshot a checkpoint wrote does not load")
    }
    if summary(reopened) != objects || reopened.commitSequence != sequence {
        fuzzFailure("replaying the journal and reading its checkpoint differ: \(objects) at \(sequence), "
                    + "then \(summary(reopened)) at \(reopened.commitSequence)")
    }
    again.remove(reopened)
    return 0
}

@main
enum JournalFuzzer {
    static func main() {
        runFuzzer(journalFuzzTest)
    }
}
