import GraphCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Settings of the calling thread the operating system sees: its name and its scheduling
/// priority (nice value).
///
/// On Linux the nice value belongs to each thread, not to the process: `setpriority` with
/// `PRIO_PROCESS` and 0 changes the calling thread only, and threads it starts inherit it. A
/// thread may always lower its own priority (raise its nice value); only a privileged one may
/// raise it again, so the engine lowers the writer's once, when it starts.
enum CurrentThread {
    /// The most a thread's nice value can be.
    static let lowestNice = 19

    /// Names the calling thread for the operating system (``ThreadName/set(_:)``).
    static func setName(_ name: String) {
        ThreadName.set(name)
    }

    /// The calling thread's nice value.
    static var currentNice: Int32 {
        #if os(Linux)
        return getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        #else
        return getpriority(PRIO_PROCESS, 0)
        #endif
    }

    /// Adds `steps` (1...19) to the calling thread's nice value, at most up to 19; returns
    /// the nice value it has now, or the `errno` of a failure.
    @discardableResult
    static func lowerPriority(by steps: Int) -> Result<Int32, ThreadPriorityError> {
        let before = currentNice
        let target = Int32(min(max(Int(before) + max(steps, 0), -20), lowestNice))
        #if os(Linux)
        let result = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, target)
        #else
        let result = setpriority(PRIO_PROCESS, 0, target)
        #endif
        guard result == 0 else { return .failure(ThreadPriorityError(nice: target, errno: errno)) }
        return .success(currentNice)
    }
}

/// The writer's priority could not be lowered.
struct ThreadPriorityError: Error, CustomStringConvertible {
    /// The nice value asked for.
    let nice: Int32
    let errno: Int32

    var description: String {
        "the thread's nice value could not be set to \(nice): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}
