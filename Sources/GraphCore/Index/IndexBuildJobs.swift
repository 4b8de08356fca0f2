import Dispatch

/// Builds independent indexes side by side: on as many threads as the machine has cores when
/// there is enough to build, else one after the other.
enum IndexBuildJobs {
    /// Below this many entries in all, threads cost more than they save.
    static let parallelThreshold = 50_000

    /// `build(job)` for each job, in the jobs' order; `size(job)` is the entries it indexes.
    static func map<Job, Built>(_ jobs: [Job], size: (Job) -> Int, _ build: (Job) -> Built) -> [Built] {
        guard jobs.count > 1, jobs.reduce(0, { $0 + size($1) }) >= parallelThreshold else { return jobs.map(build) }
        let results = UnsafeMutableBufferPointer<Built?>.allocate(capacity: jobs.count)
        results.initialize(repeating: nil)
        defer {
            results.deinitialize()
            results.deallocate()
        }
        // Each iteration writes its own slot only; the jobs are read, never changed.
        withoutActuallyEscaping(build) { build in
            let shared = UncheckedShare(jobs: jobs, build: build, results: results)
            DispatchQueue.concurrentPerform(iterations: jobs.count) { job in
                shared.results[job] = shared.build(shared.jobs[job])
            }
        }
        return results.compactMap { $0 }
    }
}

/// What the threads of ``IndexBuildJobs/map(_:size:_:)`` share: jobs only read, results
/// written one slot per thread, so no two threads touch the same memory.
private struct UncheckedShare<Job, Built>: @unchecked Sendable {
    let jobs: [Job]
    let build: (Job) -> Built
    let results: UnsafeMutableBufferPointer<Built?>
}
