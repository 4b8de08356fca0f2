import Foundation

/// An error of the JSON store: a file that is not JSON or not a store file, a store written
/// for another model, a lock held by another process, a failed write.
///
/// Every case says what is wrong and where: the file, and for JSON errors the byte offset,
/// line and column; for store errors the entity, the object's reference and the property.
/// Compare errors in tests; show ``description`` to users.
public enum JSONStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file is not valid JSON (or has a NUL byte, a comment, invalid UTF-8, a second value).
    /// `line` and `column` count from 1; `column` counts bytes.
    case invalidJSON(file: String, offset: Int, line: Int, column: Int, reason: String)
    /// The file is JSON but not shaped as a store file (`reason` says what was expected).
    case notAStoreFile(file: String, reason: String)
    /// The file's `formatVersion` is not one this program reads (`found` is its JSON text).
    case unsupportedFormatVersion(file: String, found: String)
    /// The file was written for a model whose entities differ (or are missing on one side).
    case modelMismatch(file: String, entities: [String])
    /// A name in `objects` that the model has no entity for.
    case unknownEntity(file: String, entity: String)
    /// An abstract entity listed with objects of its own.
    case abstractEntity(file: String, entity: String)
    /// An object's `ref`, `version` or `values` is missing or malformed.
    case invalidObject(file: String, entity: String, reference: Int64?, reason: String)
    /// A value that is not of its property's type (`found` is its JSON text, shortened).
    case invalidValue(file: String, entity: String, reference: Int64?, property: String, expected: String, found: String)
    /// A key in `values` that is not a property of the entity.
    case unknownProperty(file: String, entity: String, reference: Int64?, key: String)
    /// A required attribute without a value (and without a default).
    case missingValue(file: String, entity: String, reference: Int64?, property: String)
    /// Two objects with one reference.
    case duplicateReference(file: String, entity: String, reference: Int64, otherEntity: String)
    /// A relationship to a reference that no object has.
    case danglingReference(file: String, entity: String, reference: Int64, property: String, target: Int64)
    /// A relationship to an object of an entity it does not lead to.
    case wrongDestination(file: String, entity: String, reference: Int64, property: String, target: Int64,
                          targetEntity: String, expected: String)
    /// The two sides of a relationship disagree (`detail` says how).
    case inverseMismatch(file: String, entity: String, reference: Int64, property: String, detail: String)
    /// The store's URL is not a file URL.
    case notAFileURL(String)
    /// The directory that should hold the store does not exist.
    case missingDirectory(store: String, directory: String)
    /// Another process (or another open in this one) holds the store's lock.
    case storeInUse(path: String, processID: Int32?)
    /// The store was opened read-only.
    case readOnly(path: String)
    /// Loading the store failed; it refuses to save so that the file is never overwritten.
    case loadFailed(path: String)
    /// A value the file format cannot hold (a reference that is not an integer).
    case unencodableValue(entity: String, reference: String, property: String, reason: String)
    /// A file the store would lock or write is not safe to use (a symlink or hard link where
    /// a plain file must be, or not a regular file at all); `reason` says what and what to do.
    case unsafeFile(path: String, reason: String)
    /// A store option (``JSONAtomicStore/fileModeOption``) with a value the store refuses.
    case invalidOption(name: String, value: String, reason: String)
    /// The journal (`<store file>-journal`) holds a damaged record before its last one, or a
    /// gap in its commit sequence; `offset` is the byte offset of the record. The store is not
    /// opened: nothing is skipped silently. (A torn last record is cut off, not an error.)
    case invalidJournal(file: String, offset: Int, reason: String)
    /// A journal with records but no snapshot file beside it.
    case journalWithoutSnapshot(journal: String, store: String)
    /// A checkpoint folded records into the snapshot but could not keep them in the history
    /// file (`<store file>-history`, at `path`; `reason` says why): the commits are safe, the
    /// history that `changes` answers from is shorter.
    case historyNotKept(path: String, reason: String)
    /// A checkpoint step that cannot be done now (`reason` says why).
    case checkpointRefused(path: String, reason: String)
    /// The commit sequence reached its largest value: no further save can be numbered.
    case sequenceExhausted(path: String)
    /// A system call failed.
    case io(path: String, operation: String, errno: Int32)

    /// A message that says what is wrong, where, and (where it helps) what to do.
    public var description: String {
        switch self {
        case .invalidJSON(let file, let offset, let line, let column, let reason):
            return "\(file): invalid JSON at byte \(offset) (line \(line), column \(column)): \(reason)"
        case .notAStoreFile(let file, let reason):
            return "\(file): not a store file: \(reason)"
        case .unsupportedFormatVersion(let file, let found):
            return "\(file): format version \(found) is not supported (this program reads version \(StoreFileFormat.version))"
        case .modelMismatch(let file, let entities):
            return "\(file) was written for a different model: entities \(entities.joined(separator: ", ")) differ"
        case .unknownEntity(let file, let entity):
            return "\(file): unknown entity \(Self.quoted(entity)) in \"objects\""
        case .abstractEntity(let file, let entity):
            return "\(file): entity \(Self.quoted(entity)) is abstract and cannot have objects of its own in \"objects\""
        case .invalidObject(let file, let entity, let reference, let reason):
            return "\(file): \(Self.object(entity, reference)): \(reason)"
        case .invalidValue(let file, let entity, let reference, let property, let expected, let found):
            return "\(file): \(Self.object(entity, reference)), property \(Self.quoted(property)): expected \(expected), found \(found)"
        case .unknownProperty(let file, let entity, let reference, let key):
            return "\(file): \(Self.object(entity, reference)): \(Self.quoted(key)) is not a property of \(entity)"
        case .missingValue(let file, let entity, let reference, let property):
            return "\(file): \(Self.object(entity, reference)), property \(Self.quoted(property)): a value is required"
        case .duplicateReference(let file, let entity, let reference, let otherEntity):
            return "\(file): \(entity) \(reference): reference \(reference) is used twice (also by \(otherEntity) \(reference))"
        case .danglingReference(let file, let entity, let reference, let property, let target):
            return "\(file): \(entity) \(reference), property \(Self.quoted(property)): no object has reference \(target)"
        case .wrongDestination(let file, let entity, let reference, let property, let target, let targetEntity, let expected):
            return "\(file): \(entity) \(reference), property \(Self.quoted(property)): reference \(target) is \(Self.article(targetEntity)) \(targetEntity), expected \(Self.article(expected)) \(expected)"
        case .inverseMismatch(let file, let entity, let reference, let property, let detail):
            return "\(file): \(entity) \(reference), property \(Self.quoted(property)): \(detail)"
        case .notAFileURL(let url):
            return "a JSON store needs a file URL, not \(url)"
        case .missingDirectory(let store, let directory):
            return "cannot open store \(store): the directory \(directory) does not exist"
        case .storeInUse(let path, let processID):
            return "store \(path) is in use by process \(processID.map(String.init) ?? "(unknown)")"
        case .readOnly(let path):
            return "store \(path) was opened read-only and cannot be saved"
        case .loadFailed(let path):
            return "store \(path) failed to load and refuses to save, so that the file is not overwritten"
        case .unencodableValue(let entity, let reference, let property, let reason):
            return "\(entity) \(reference), property \(Self.quoted(property)): cannot be written: \(reason)"
        case .unsafeFile(let path, let reason):
            return "\(path): refused: \(reason)"
        case .invalidOption(let name, let value, let reason):
            return "store option \(name)=\(Self.quoted(value)): \(reason)"
        case .invalidJournal(let file, let offset, let reason) where file.hasSuffix("-history"):
            return "\(file): damaged history file at byte \(offset): \(reason); its records are not used "
                + "(restore it from a backup, or remove it to lose that history)"
        case .historyNotKept(let path, let reason):
            return "\(path): the checkpoint's records were not kept in the history file: \(reason); the commits are "
                + "safe in the snapshot, but history before them is lost (fix the file, or remove it)"
        case .invalidJournal(let file, let offset, let reason):
            return "\(file): damaged journal at byte \(offset): \(reason); the store was not opened "
                + "(restore the journal from a backup, or cut it at that offset to lose the commits from there on)"
        case .journalWithoutSnapshot(let journal, let store):
            return "\(journal): a journal without its snapshot file \(store); restore the snapshot file, "
                + "or remove the journal to start an empty store"
        case .checkpointRefused(let path, let reason):
            return "store \(path): checkpoint refused: \(reason)"
        case .sequenceExhausted(let path):
            return "store \(path): the commit sequence reached \(Int64.max); no further save can be numbered"
        case .io(let path, let operation, let code):
            return "\(path): \(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
        }
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.prefix(100).replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private static func object(_ entity: String, _ reference: Int64?) -> String {
        reference.map { "\(entity) \($0)" } ?? "\(entity) (object without \"ref\")"
    }

    private static func article(_ noun: String) -> String {
        guard let first = noun.unicodeScalars.first else { return "a" }
        return "AEIOUaeiou".unicodeScalars.contains(first) ? "an" : "a"
    }
}
