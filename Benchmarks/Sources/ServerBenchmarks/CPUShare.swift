import BenchmarkSupport
#if canImport(Glibc)
import Glibc
#endif

/// The CPU a server, its load client and everything else on the machine used during one
/// run, in cores (CPU-seconds per second). The machine has 2 cores shared with other
/// engineers' builds: `other` says how much of it a run did not have.
struct CPUShare {
    let server: Double
    let client: Double
    let other: Double
    /// Involuntary context switches per second of the server's threads and of the load client's
    /// (nil for a client that is not this process).
    let serverPreemptions: Double
    let clientPreemptions: Double?

    /// Where the load client's CPU time is read.
    enum Client {
        /// This process (the SwiftNIO load client).
        case thisProcess
        /// A child program run to its end during the run (redis-benchmark).
        case endedChildren

        var seconds: Double {
            switch self {
            case .thisProcess: ProcessCPU.seconds(pid: getpid())
            case .endedChildren: ProcessCPU.endedChildrenSeconds()
            }
        }
    }

    /// CPU times at the start of a run; `share()` at its end.
    struct Start {
        let serverPID: Int32
        let clientKind: Client
        let time = MonotonicClock.nanoseconds()
        let server: Double
        let client: Double
        let machine = ProcessCPU.machineBusySeconds()
        let serverPreemptions: Int
        let clientPreemptions = ProcessCPU.preemptions(pid: getpid())

        init(serverPID: Int32, client: Client = .thisProcess) {
            self.serverPID = serverPID
            self.clientKind = client
            self.server = ProcessCPU.seconds(pid: serverPID)
            self.client = client.seconds
            self.serverPreemptions = ProcessCPU.preemptions(pid: serverPID)
        }

        /// `endedThreadPreemptions`: those of a client thread that ended during the run.
        func share(endedThreadPreemptions: Int = 0) -> CPUShare {
            let elapsed = Double(MonotonicClock.nanoseconds() - time) / 1e9
            let server = (ProcessCPU.seconds(pid: serverPID) - self.server) / elapsed
            let client = (clientKind.seconds - self.client) / elapsed
            let machine = (ProcessCPU.machineBusySeconds() - self.machine) / elapsed
            let serverPreemptions = Double(ProcessCPU.preemptions(pid: serverPID) - self.serverPreemptions) / elapsed
            // Threads that ended during the run take their counts with them: never below 0.
            let clientPreemptions = Double(max(ProcessCPU.preemptions(pid: getpid()) - self.clientPreemptions, 0) + endedThreadPreemptions) / elapsed
            return CPUShare(server: server, client: client, other: max(machine - server - client, 0),
                            serverPreemptions: serverPreemptions, clientPreemptions: clientKind == .thisProcess ? clientPreemptions : nil)
        }
    }

    func describe(server serverName: String, client clientName: String) -> String {
        "CPU: \(serverName) \(fixed(server, 2)) cores, \(clientName) \(fixed(client, 2)), other processes \(fixed(other, 2));"
            + " preempted/s: \(serverName) \(grouped(Int(serverPreemptions)))"
            + (clientPreemptions.map { ", \(clientName) \(grouped(Int($0)))" } ?? "")
    }
}
