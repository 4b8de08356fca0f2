import Foundation

/// The name the operating system shows for a thread (`top -H`, `perf`, `/proc/…/task/…/comm`).
public enum ThreadName {
    /// Names the calling thread, cut to 15 bytes: Foundation's `Thread.name` does not reach the
    /// operating system on Linux (a new thread keeps the name of the one that started it).
    public static func set(_ name: String) {
        #if os(Linux)
        guard let file = fopen("/proc/thread-self/comm", "w") else { return }
        _ = fputs(String(name.utf8.prefix(15)) ?? name, file)
        fclose(file)
        #endif
    }
}
