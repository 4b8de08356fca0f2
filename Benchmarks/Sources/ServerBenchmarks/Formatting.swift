import Foundation

/// `1234567` → `1,234,567`.
func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var out = ""
    for (offset, character) in digits.enumerated() {
        if offset > 0, (digits.count - offset) % 3 == 0 { out.append(",") }
        out.append(character)
    }
    return value < 0 ? "-" + out : out
}

func fixed(_ value: Double, _ digits: Int = 0) -> String { String(format: "%.\(digits)f", value) }

func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }

func fileSize(_ url: URL) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
}

/// Prints a line at once (unbuffered, so that a piped run shows each figure as it comes).
/// When standard output is gone (a closed pipe), stops the servers and exits.
func say(_ line: String = "") {
    do {
        try FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8))
    } catch {
        ChildProcessReaper.stopAll()
        exit(141)
    }
}
