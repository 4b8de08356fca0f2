import Foundation
import ServerTestSupport
import Testing

extension ServerProcess {
    /// The server's peak resident memory so far (`VmHWM` of `/proc/PID/status`), in bytes.
    func peakMemory() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        return try #require(Int(line.split(separator: " ").dropFirst().first ?? "")) * 1024
    }
}
