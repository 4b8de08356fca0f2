import DocumentProtocol
import Foundation
import GraphCore
import JSONAtomicStore
import JSONCore

/// `backup`: copies the server's JSON store, while saves go on, into a new directory on the
/// server's machine, consistent at one commit (`docs/PROTOCOL.md`, "backup";
/// `docs/OPERATIONS.md`, "Backup and restore"). Runs on a thread of its own, never on the
/// writer or a reader.
struct BackupCall: Sendable {
    /// The directory to create (or an empty one), an absolute path on the server's machine.
    let directory: String

    static func parse(_ params: JSONValue) throws(RPCError) -> BackupCall {
        let params = try Params(params, allowed: ["to"])
        guard let directory = try params.optionalString("to") else {
            throw .invalidParams(params.path("to"), "is required: the backup directory, an absolute path on the server's machine")
        }
        guard directory.hasPrefix("/") else {
            throw .invalidParams(params.path("to"), "must be an absolute path on the server's machine")
        }
        return BackupCall(directory: directory)
    }

    /// Copies `store` (when it is a JSON store) and answers the manifest:
    /// `{"seq","baseSeq","time","directory","files":[{"name","bytes","crc32c"}]}`.
    func run(store: PersistentStore, latestSequence: () -> Int64) -> Reply {
        guard let json = store as? JSONAtomicStore else {
            return .error(RPCError(code: .storeUnavailable,
                                   message: "backup copies a JSON store; back up a PostgreSQL database with its own tools (pg_dump, pg_basebackup)",
                                   data: .object([("reason", .string("not a JSON store"))])))
        }
        do {
            let manifest = try StoreBackupCopy.copy(storePath: json.path, to: directory, latestSequence: latestSequence)
            return .result { out in
                try out.openObject()
                try out.string("seq")
                try out.integer(manifest.sequence)
                try out.string("baseSeq")
                try out.integer(manifest.baseSequence)
                try out.string("time")
                try out.string(manifest.time)
                try out.string("directory")
                try out.string(directory)
                try out.string("files")
                try out.openArray()
                for file in manifest.files {
                    try out.openObject()
                    try out.string("name")
                    try out.string(file.name)
                    try out.string("bytes")
                    try out.integer(file.bytes)
                    try out.string("crc32c")
                    try out.string(file.crc32c)
                    try out.closeObject()
                }
                try out.closeArray()
                try out.closeObject()
            }
        } catch {
            return .error(RPCError(code: .storeUnavailable, message: "backup failed: \(error)",
                                   data: .object([("reason", .string("\(error)"))])))
        }
    }
}
