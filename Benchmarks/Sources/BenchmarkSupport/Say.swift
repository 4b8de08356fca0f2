import Foundation

/// Prints a line at once (unbuffered, so that a piped run shows each figure as it comes).
/// When standard output is gone (a closed pipe), stops the child processes and exits.
public func say(_ line: String = "") {
    do {
        try FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8))
    } catch {
        ChildProcessReaper.stopAll()
        exit(141)
    }
}
