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

    /// CPU time all processes of the machine have used so far (busy time from `/proc/stat`).
    static func machineBusySeconds() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first, line.hasPrefix("cpu ") else { return .nan }
        // user nice system idle iowait irq softirq steal …
        let ticks = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard ticks.count >= 8 else { return .nan }
        let busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7]
        return busy / Double(sysconf(Int32(_SC_CLK_TCK)))
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

/// The CPU the server, this process and everything else on the machine used during one
/// run, in cores (CPU-seconds per second); `other` shows when the run shared the machine.
struct CPUShare {
    let server: Double
    let client: Double
    let other: Double

    /// CPU times at the start of a run; `share()` at its end.
    struct Start {
        let serverPID: Int32
        let time = MonotonicClock.nanoseconds()
        let server: Double
        let client = ProcessCPU.seconds(pid: getpid())
        let machine = ProcessCPU.machineBusySeconds()

        init(serverPID: Int32) {
            self.serverPID = serverPID
            self.server = ProcessCPU.seconds(pid: serverPID)
        }

        func share() -> CPUShare {
            let elapsed = Double(MonotonicClock.nanoseconds() - time) / 1e9
            let server = (ProcessCPU.seconds(pid: serverPID) - self.server) / elapsed
            let client = (ProcessCPU.seconds(pid: getpid()) - self.client) / elapsed
            let machine = (ProcessCPU.machineBusySeconds() - self.machine) / elapsed
            return CPUShare(server: server, client: client, other: max(machine - server - client, 0))
        }
    }
}
