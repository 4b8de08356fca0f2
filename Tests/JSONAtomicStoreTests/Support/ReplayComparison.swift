import Foundation
import GraphCore
import Testing

extension OpenStore {
    /// Copies the store at `url` (opened as `self`) and its journal into `directory`,
    /// checkpoints the original and closes it, and opens both: the copy replays the journal,
    /// expected to hold `records` records. Returns the checkpointed store's dump and the
    /// replayed store, still open.
    func replayedAndCheckpointed(at url: URL, in directory: TemporaryDirectory, model: ObjectModel,
                                 records: Int) throws -> (expected: [String: [String]], replayed: OpenStore) {
        let copy = directory.file("copy.json")
        try FileManager.default.copyItem(at: url, to: copy)
        try FileManager.default.copyItem(at: journalURL(url), to: journalURL(copy))
        try store.checkpoint()
        close()
        let checkpointed = try OpenStore(url, model: model)
        let expected = checkpointed.dump()
        checkpointed.close()
        let replayed = try OpenStore(copy, model: model)
        #expect(replayed.store.replayedRecordCount == records)
        return (expected, replayed)
    }
}
