import Foundation
import ServerTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `docserver serve --writer-nice`: the writer thread runs below the readers' priority, so that
/// reads keep the CPU while saves run on a busy machine.
@Suite struct WriterPriorityTests {
    /// The nice value of each thread of process `pid`, by thread name (names are cut to 15
    /// bytes: "docserver write", "docserver read1").
    private func niceValues(of pid: Int32) -> [(name: String, nice: Int)] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { task -> (String, Int)? in
            guard let comm = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8),
                  let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            // After "pid (comm) ": state is field 3; nice is field 19, the 17th after the name.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 16, let nice = Int(fields[16]) else { return nil }
            return (comm.trimmingCharacters(in: .whitespacesAndNewlines), nice)
        }
    }

    /// The writer's and the readers' nice values once the writer has set its own (awaited, up to 10 s).
    private func priorities(of server: ServerProcess, writerExpected: Int) -> (writer: Int?, readers: [Int]) {
        let deadline = Date().addingTimeInterval(10)
        while true {
            let threads = niceValues(of: server.process.processIdentifier)
            let writer = threads.first { $0.name.hasPrefix("docserver write") }?.nice
            let readers = threads.filter { $0.name.hasPrefix("docserver read") }.map(\.nice)
            if writer == writerExpected || Date() > deadline { return (writer, readers) }
            usleep(10_000)
        }
    }

    @Test("the writer thread runs --writer-nice steps below the readers, and saves and reads still work")
    func writerRunsAtTheNiceValueGiven() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--writer-nice", "7"])
        let client = try server.connect()
        _ = try SampleData.insert(through: client)
        let found = priorities(of: server, writerExpected: 7)
        #expect(found.writer == 7, "threads: \(niceValues(of: server.process.processIdentifier))")
        #expect(!found.readers.isEmpty && found.readers.allSatisfy { $0 == 0 }, "readers: \(found.readers)")
        #expect(try server.stop() == 0)
    }

    @Test("by default the writer runs 10 nice steps below the readers; --writer-nice 0 keeps it at theirs")
    func defaultAndZero() throws {
        for (arguments, expected) in [([String](), 10), (["--writer-nice", "0"], 0)] {
            let directory = try TemporaryDirectory()
            let server = try ServerProcess(in: directory, arguments: arguments)
            let found = priorities(of: server, writerExpected: expected)
            #expect(found.writer == expected, "\(arguments): threads: \(niceValues(of: server.process.processIdentifier))")
            #expect(try server.stop() == 0)
        }
    }

    @Test(arguments: ["20", "-1", "x"])
    func aWriterNiceOutsideZeroToNineteenIsRefused(value: String) throws {
        let result = try runDocServer(["serve", "--port", "0", "--writer-nice", value])
        #expect(result.status != 0)
        #expect(result.errors.contains("--writer-nice"), "\(result.errors)")
    }
}
