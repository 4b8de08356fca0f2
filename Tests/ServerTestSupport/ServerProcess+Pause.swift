import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension ServerProcess {
    /// Stops the server with SIGSTOP and waits until every one of its threads is stopped.
    ///
    /// `kill` returns before that: the kernel hands SIGSTOP to one thread, and only when that
    /// thread next runs does it stop the others. On a busy machine that thread can wait its
    /// turn for milliseconds while the event loop goes on answering requests.
    ///
    /// - Throws: when a thread still runs after `timeout` seconds (naming it and its state).
    public func pause(timeout: Double = 10) throws {
        let pid = process.processIdentifier
        kill(pid, SIGSTOP)
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let running = threadStates().filter { $0.state != "T" && $0.state != "t" }
            if running.isEmpty { return }
            if Date() >= deadline {
                let threads = running.map { "\($0.thread) in state \($0.state)" }.joined(separator: ", ")
                throw HarnessError("docserver (pid \(pid)) not stopped \(timeout) s after SIGSTOP: \(threads)")
            }
            usleep(1_000)
        }
    }

    /// Lets a server stopped by ``pause(timeout:)`` run again.
    public func resume() {
        kill(process.processIdentifier, SIGCONT)
    }

    /// Each thread's scheduler state, the third field of `/proc/<pid>/task/<tid>/stat` (`R`
    /// running, `S` sleeping, `T` stopped, …): read after the command name's closing
    /// parenthesis, since the name itself may hold spaces and parentheses.
    private func threadStates() -> [(thread: String, state: Character)] {
        let tasks = "/proc/\(process.processIdentifier)/task"
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []
        return threads.compactMap { thread in
            guard let stat = try? String(contentsOfFile: "\(tasks)/\(thread)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }  // the thread ended
            guard let state = stat[stat.index(after: close)...].first(where: { $0 != " " }) else { return nil }
            return (thread, state)
        }
    }
}
