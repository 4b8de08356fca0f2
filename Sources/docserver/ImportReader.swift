import Foundation
import GraphCore
import JSONAtomicStore
import JSONCore
#if canImport(Glibc)
import Glibc
#endif

/// Reads an import's input, NDJSON or one JSON array, into objects: the header first, then
/// the objects, decoded on every core a batch of lines at a time. Every bad line is
/// collected with its number (up to ``maximumProblems``), so that one run names them all.
final class ImportReader {
    /// The lines (or array elements) kept with their problems; past it, only counted.
    static let maximumProblems = 100
    /// Bytes of complete lines decoded at once.
    static let batchBytes = 8 << 20

    let model: ObjectModel
    let descriptor: Int32
    let progress: ImportProgress
    private(set) var header: ExportFormat.Header?
    private(set) var objects: [ImportedObject] = []
    private(set) var problems: [(line: Int, reason: String)] = []
    private(set) var problemCount = 0
    /// Whether the input was a JSON array (its elements are then named, not its lines).
    private(set) var isArray = false

    init(model: ObjectModel, descriptor: Int32, progress: ImportProgress) {
        self.model = model
        self.descriptor = descriptor
        self.progress = progress
    }

    /// A problem with the input as a whole (the header, the model, reading), which stops the import.
    struct Fatal: Error, CustomStringConvertible {
        let description: String
    }

    func note(_ line: Int, _ reason: String) {
        problemCount += 1
        if problems.count < Self.maximumProblems { problems.append((line, reason)) }
    }

    /// Reads the whole input.
    func read() throws {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var lineNumber = 0       // lines before `buffer`'s first byte
        var total = 0
        var decidedForm = false
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Fatal(description: "cannot read the input: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            total += count
            buffer.append(contentsOf: chunk[0..<count])
            if !decidedForm, let first = buffer.first(where: { !Self.isWhitespace($0) }) {
                decidedForm = true
                isArray = first == UInt8(ascii: "[")
            }
            if isArray { continue }
            if buffer.count >= Self.batchBytes, let last = buffer.lastIndex(of: 0x0A) {
                lineNumber = try decodeLines(buffer[...last], firstLine: lineNumber + 1)
                buffer.removeSubrange(...last)
                progress.report(objects: objects.count, bytes: total)
            }
        }
        if isArray {
            try decodeArray(buffer)
        } else {
            _ = try decodeLines(buffer[...], firstLine: lineNumber + 1)
        }
        progress.report(objects: objects.count, bytes: total, force: true)
        if header == nil { throw Fatal(description: "the input is empty: it must begin with the export's header line") }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Decodes the lines in `bytes` (the last may lack its line feed); returns the number of the last line.
    private func decodeLines(_ bytes: ArraySlice<UInt8>, firstLine: Int) throws -> Int {
        var lines: [(number: Int, range: Range<Int>)] = []
        var number = firstLine
        bytes.withUnsafeBytes { raw in
            // Offsets in `raw`; line feeds found by memchr.
            guard let base = raw.baseAddress else { return }
            var start = 0
            while start < raw.count {
                let end = memchr(base + start, 0x0A, raw.count - start).map { UnsafeRawPointer($0) - base } ?? raw.count
                var trimmed = end
                if trimmed > start, raw[trimmed - 1] == 0x0D { trimmed -= 1 }
                if raw[start..<trimmed].contains(where: { !Self.isWhitespace($0) }) {
                    lines.append((number, start..<trimmed))
                }
                number += 1
                start = end + 1
            }
        }
        let lastLine = number - 1
        var rest = lines[...]
        if header == nil, let first = rest.first {
            rest = rest.dropFirst()
            let json = try bytes.withUnsafeBytes { raw -> JSONValue in
                do {
                    return try JSONValue.parse(UnsafeRawBufferPointer(rebasing: raw[first.range]), maximumDepth: 8)
                } catch {
                    throw Fatal(description: "line \(first.number): the header is not JSON: \(error)")
                }
            }
            try takeHeader(json, place: "line \(first.number)")
        }
        guard let header, !rest.isEmpty else { return lastLine }
        let parts = min(rest.count, max(1, ProcessInfo.processInfo.activeProcessorCount))
        let results = PartResults(count: parts)
        let all = Array(rest)
        let model = self.model
        bytes.withUnsafeBytes { buffer in
            // Only read, by every task, while `bytes` lives (concurrentPerform returns when all ended).
            let shared = UncheckedSendable(buffer)
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                let raw = shared.value
                let range = (all.count * part / parts)..<(all.count * (part + 1) / parts)
                var decoder = ImportDecoder(model: model, storeUUID: header.storeUUID)
                var decoded: [ImportedObject] = []
                var failed: [(Int, String)] = []
                decoded.reserveCapacity(range.count)
                for line in all[range] {
                    do {
                        decoded.append(try decoder.decode(UnsafeRawBufferPointer(rebasing: raw[line.range]), line: line.number))
                    } catch {
                        failed.append((line.number, "\(error)"))
                    }
                }
                results.set(part, decoded, failed)
            }
        }
        for part in 0..<parts {
            let (decoded, failed) = results.take(part)
            objects.append(contentsOf: decoded)
            for (line, reason) in failed { note(line, reason) }
        }
        return lastLine
    }

    /// Decodes a JSON array: the header, then the objects.
    private func decodeArray(_ bytes: [UInt8]) throws {
        let json: JSONValue
        do {
            json = try bytes.withUnsafeBytes { try JSONValue.parse($0, maximumDepth: 10) }
        } catch {
            throw Fatal(description: "the input is not a JSON array of the export's header and objects: \(error)")
        }
        guard case .array(let elements) = json, let first = elements.first else {
            throw Fatal(description: "the input is an empty JSON array: it must begin with the export's header")
        }
        try takeHeader(first, place: "element 1")
        guard let header else { return }
        var decoder = ImportDecoder(model: model, storeUUID: header.storeUUID)
        for (index, element) in elements.enumerated().dropFirst() {
            do {
                objects.append(try decoder.decode(element, line: index + 1))
            } catch {
                note(index + 1, "\(error)")
            }
        }
    }

    private func takeHeader(_ json: JSONValue, place: String) throws {
        let header: ExportFormat.Header
        do {
            header = try ExportFormat.Header.read(json)
        } catch {
            throw Fatal(description: "\(place): \(error)")
        }
        let differing = header.differingEntities(from: model)
        guard differing.isEmpty else {
            throw ModelRefused(exportModel: header.modelName, entities: differing)
        }
        self.header = header
    }

    /// The export was written for another model.
    struct ModelRefused: Error, CustomStringConvertible {
        let exportModel: String
        let entities: [String]
        var description: String {
            "the export was written for a different model" + (exportModel.isEmpty ? "" : " (\(exportModel))")
                + ": entities \(entities.joined(separator: ", ")) differ; import it with the model it was exported with (--model), "
                + "or migrate the store afterwards (docserver migrate)"
        }
    }

    /// The objects and problems of each part of a batch, each written by its own task.
    final class PartResults: @unchecked Sendable {
        // @unchecked: each slot is written by one task, under the lock, and read after all ended.
        private var slots: [([ImportedObject], [(Int, String)])]
        private let lock = NSLock()
        init(count: Int) { slots = Array(repeating: ([], []), count: count) }
        func set(_ index: Int, _ objects: [ImportedObject], _ problems: [(Int, String)]) {
            lock.withLock { slots[index] = (objects, problems) }
        }
        func take(_ index: Int) -> ([ImportedObject], [(Int, String)]) { lock.withLock { slots[index] } }
    }
}

/// A value handed to the tasks of `DispatchQueue.concurrentPerform` that it does not let through
/// (memory the tasks only read, objects no task changes); the caller answers for it.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Progress of an import on standard error, at most once a second.
final class ImportProgress {
    private let start = Date()
    private var last = Date.distantPast
    let enabled: Bool

    init(enabled: Bool) { self.enabled = enabled }

    func report(objects: Int, bytes: Int, force: Bool = false) {
        guard enabled else { return }
        let now = Date()
        guard force || now.timeIntervalSince(last) >= 1 else { return }
        last = now
        let megabytes = Double(bytes) / 1_000_000
        FileHandle.standardError.write(Data(String(format: "import: %ld objects read (%.1f MB, %.1f s)\n", objects, megabytes,
                                                   now.timeIntervalSince(start)).utf8))
    }

    func say(_ text: String) {
        guard enabled else { return }
        FileHandle.standardError.write(Data(("import: \(text) (" + String(format: "%.1f s", Date().timeIntervalSince(start)) + ")\n").utf8))
    }
}
