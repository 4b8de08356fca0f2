import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Stops the servers this benchmark started when the benchmark itself is stopped (Ctrl-C,
/// SIGTERM, SIGHUP, or its output pipe closed, as by `| head`), so that no docserver or
/// redis-server outlives it, and removes the benchmark's temporary directory.
public enum ChildProcessReaper {
    private static let running = Mutex<Set<Int32>>([])
    private static let directories = Mutex<[String]>([])

    /// A directory to remove when the benchmark is stopped.
    public static func removeOnStop(_ directory: String) { directories.withLock { $0.append(directory) } }

    public static func register(_ pid: Int32) { running.withLock { _ = $0.insert(pid) } }

    /// Registers the server of a PostgreSQL cluster that `pg_ctl start` left running in the
    /// background (its PID is the first line of `<data>/postmaster.pid`), so that a benchmark
    /// stopped by a signal stops it too; returns the PID (nil when the file cannot be read).
    @discardableResult
    public static func registerPostmaster(dataDirectory: String) -> Int32? {
        guard let text = try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8),
              let first = text.split(separator: "\n").first, let pid = Int32(first.trimmingCharacters(in: .whitespaces)) else { return nil }
        register(pid)
        return pid
    }
    public static func unregister(_ pid: Int32) { running.withLock { _ = $0.remove(pid) } }

    /// SIGTERM to every child still running; removes the registered directories.
    public static func stopAll() {
        for pid in running.withLock({ $0 }) { kill(pid, SIGTERM) }
        for directory in directories.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// On each of `signals`: ``stopAll()``, then exit with 128 + the signal's number.
    public static func installSignalHandlers(_ signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGPIPE]) {
        for signalNumber in signals {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                stopAll()
                exit(128 + signalNumber)
            }
            source.resume()
            // Kept for the life of the process on purpose: a released source stops watching.
            _ = Unmanaged.passRetained(source as AnyObject)
        }
    }
}
