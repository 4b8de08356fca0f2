import Foundation
import JSONCore

/// The manifest of a backup directory (`manifest.json`), written last: a directory without
/// one is not a (complete) backup. `docs/OPERATIONS.md`, "Backup and restore".
public struct BackupManifest: Sendable, Equatable {
    /// The manifest's `format`.
    public static let format = "docserver-backup"
    /// The manifest's `formatVersion`.
    public static let version: Int64 = 1
    /// The file name of the manifest in a backup directory.
    public static let fileName = "manifest.json"
    /// The file name of the base snapshot (a store file).
    public static let snapshotName = "snapshot.json"
    /// The file name of the records after the base (a version 2 journal).
    public static let recordsName = "records.journal"

    /// A file of the backup, its size and CRC-32C.
    public struct File: Sendable, Equatable {
        public let name: String
        public let bytes: Int64
        /// CRC-32C (Castagnoli) of the whole file, 8 lowercase hex digits (as journal records' `crc`).
        public let crc32c: String
    }

    /// The commit the backup holds: a restore without `--to-seq` or `--to-time` gives the
    /// store as it was right after it.
    public let sequence: Int64
    /// The commit of the base snapshot: the oldest a restore can reach.
    public let baseSequence: Int64
    /// When the backup was taken (ISO 8601, UTC).
    public let time: String
    /// The time of each commit a restore can reach, from the base's (when the backup holds
    /// its record; else nil) to the newest.
    public let baseTime: String?
    public let newestTime: String?
    public let files: [File]

    func json() -> JSONValue {
        func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
        return .object([
            ("format", .string(Self.format)), ("formatVersion", .integer(Self.version)),
            ("seq", .integer(sequence)), ("baseSeq", .integer(baseSequence)), ("time", .string(time)),
            ("baseTime", optional(baseTime)), ("newestTime", optional(newestTime)),
            ("files", .array(files.map { .object([("name", .string($0.name)), ("bytes", .integer($0.bytes)),
                                                   ("crc32c", .string($0.crc32c))]) })),
        ])
    }

    /// Reads a manifest; the error names the file and what is wrong.
    public static func read(directory: String) throws -> BackupManifest {
        let path = URL(fileURLWithPath: directory).appendingPathComponent(fileName).path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BackupError(path: path, reason: "no backup manifest here (a backup directory holds \(fileName), written last)")
        }
        let json: JSONValue
        do {
            json = try data.withUnsafeBytes { try JSONValue.parse($0) }
        } catch {
            throw BackupError(path: path, reason: "not JSON: \(error)")
        }
        func integer(_ key: String) throws -> Int64 {
            guard case .number(let text)? = json[key], let value = Int64(text), value >= 0 else {
                throw BackupError(path: path, reason: "\"\(key)\" must be an integer of 0 or more")
            }
            return value
        }
        func string(_ key: String) -> String? {
            if case .string(let text)? = json[key] { return text }
            return nil
        }
        guard string("format") == format else { throw BackupError(path: path, reason: "not a \(format) manifest") }
        guard try integer("formatVersion") == version else {
            throw BackupError(path: path, reason: "format version \(json["formatVersion"]?.jsonText ?? "?") is not supported (this program reads \(version))")
        }
        guard case .array(let entries)? = json["files"] else { throw BackupError(path: path, reason: "\"files\" must be an array") }
        var files: [File] = []
        for entry in entries {
            guard case .string(let name)? = entry["name"], case .number(let size)? = entry["bytes"], let bytes = Int64(size),
                  case .string(let crc)? = entry["crc32c"], !name.contains("/") else {
                throw BackupError(path: path, reason: "each of \"files\" must be {\"name\",\"bytes\",\"crc32c\"} (a name without /)")
            }
            files.append(File(name: name, bytes: bytes, crc32c: crc))
        }
        return BackupManifest(sequence: try integer("seq"), baseSequence: try integer("baseSeq"), time: string("time") ?? "",
                              baseTime: string("baseTime"), newestTime: string("newestTime"), files: files)
    }
}

/// A backup that cannot be made, read or restored: the file and why.
public struct BackupError: Error, CustomStringConvertible {
    public let path: String
    public let reason: String
    /// Whether a file of the backup is damaged (rather than the backup unusable for what was asked).
    public let isDamage: Bool
    public init(path: String, reason: String, isDamage: Bool = false) {
        self.path = path
        self.reason = reason
        self.isDamage = isDamage
    }
    public var description: String { "\(path): \(reason)" }
}
