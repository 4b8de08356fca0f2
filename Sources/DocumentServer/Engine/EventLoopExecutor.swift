import NIOCore

/// A task executor that runs its tasks' jobs on one event loop: a task that prefers it starts
/// there, and each time it resumes after waiting for something that completes on that loop (a
/// statement on a database connection made there), it goes on there too, with no thread
/// switch, where a thread waiting for the same answer is woken at each step.
final class EventLoopExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
