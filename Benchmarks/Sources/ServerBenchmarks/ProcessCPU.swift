import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// CPU time (user + system) a process has used so far, from `/proc/<pid>/stat`: to tell how
/// the 2 cores are shared between the server and the load client during a run.
enum ProcessCPU {
    static func seconds(pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return .nan }
        // Fields after "(comm)": state is field 3; utime and stime are fields 14 and 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Resident memory of a process (VmRSS) in bytes.
    static func residentBytes(pid: Int32) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return (line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0) * 1024
        }
        return 0
    }
}

/// The CPU the server and this process used during one run, in cores (CPU-seconds per second).
struct CPUShare {
    let server: Double
    let client: Double

    /// CPU times at the start of a run; `share()` at its end.
    struct Start {
        let serverPID: Int32
        let time = MonotonicClock.nanoseconds()
        let server: Double
        let client = ProcessCPU.seconds(pid: getpid())

        init(serverPID: Int32) {
            self.serverPID = serverPID
            self.server = ProcessCPU.seconds(pid: serverPID)
        }

        func share() -> CPUShare {
            let elapsed = Double(MonotonicClock.nanoseconds() - time) / 1e9
            return CPUShare(server: (ProcessCPU.seconds(pid: serverPID) - server) / elapsed,
                            client: (ProcessCPU.seconds(pid: getpid()) - client) / elapsed)
        }
    }
}
