import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Wall and CPU time of each phase of a store's load, written to standard error when the
/// environment variable `JSONSTORE_LOAD_TRACE` is set (for profiling; off otherwise).
struct LoadTrace {
    static let isOn = ProcessInfo.processInfo.environment["JSONSTORE_LOAD_TRACE"] != nil
    private var wall = DispatchTime.now().uptimeNanoseconds
    private var cpu = LoadTrace.cpuNanoseconds()

    /// Writes the time since the last mark (or the start) under `phase`.
    mutating func mark(_ phase: String) {
        guard Self.isOn else { return }
        let nowWall = DispatchTime.now().uptimeNanoseconds, nowCPU = Self.cpuNanoseconds()
        let name = phase.padding(toLength: 24, withPad: " ", startingAt: 0)
        let line = "load " + name + String(format: " wall %7.1f ms  cpu %7.1f ms\n",
                                             Double(nowWall &- wall) / 1e6, Double(nowCPU &- cpu) / 1e6)
        FileHandle.standardError.write(Data(line.utf8))
        wall = nowWall
        cpu = nowCPU
    }

    /// User + system CPU time of the process, every thread.
    private static func cpuNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return UInt64(truncatingIfNeeded: time.tv_sec) &* 1_000_000_000 &+ UInt64(truncatingIfNeeded: time.tv_nsec)
    }
}
