import Foundation

/// A headline figure of a benchmark: printed, and appended as one JSON line to the file that the
/// environment variable `BENCH_FIGURES` names (when set), from which `scripts/readme-figures.py`
/// writes the README's performance table. The README therefore shows what a benchmark printed,
/// never a number typed by hand.
///
/// - Parameters:
///   - name: what was measured, as the table's first column (with `data`, the key: a later line
///     with the same name and data replaces an earlier one).
///   - data: how much data, as the second column.
///   - result: the figure with its peer and ratio, as the third column.
public func recordFigure(_ name: String, data: String, result: String) {
    say("figure: \(name) [\(data)]: \(result)")
    guard let path = ProcessInfo.processInfo.environment["BENCH_FIGURES"], !path.isEmpty else { return }
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withFullDate]
    // Paths by their last component: a figure names no folder of the machine it ran on.
    let command = CommandLine.arguments.enumerated().map { index, argument in
        index == 0 || argument.hasPrefix("/") ? URL(fileURLWithPath: argument).lastPathComponent : argument
    }.joined(separator: " ")
    let entry: [String: String] = ["name": name, "data": data, "result": result, "date": formatter.string(from: Date()),
                                   "command": command]
    guard let json = try? JSONSerialization.data(withJSONObject: entry, options: [.sortedKeys]) else { return }
    let url = URL(fileURLWithPath: path)
    if !FileManager.default.fileExists(atPath: path) { FileManager.default.createFile(atPath: path, contents: nil) }
    guard let handle = try? FileHandle(forWritingTo: url) else {
        say("(cannot append the figure to \(path))")
        return
    }
    defer { try? handle.close() }
    _ = try? handle.seekToEnd()
    try? handle.write(contentsOf: json + Data("\n".utf8))
}
