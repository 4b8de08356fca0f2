import Foundation
import ServerTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The rule of `docs/PROTOCOL.md` (Shutdown) for pipelined requests when the server gets
/// SIGTERM, against the real binary: every request received before is carried out and
/// answered, later ones are neither, the same on every connection.
@Suite struct ShutdownRuleTests {
    static let connections = 4
    static let savesPerConnection = 1_500

    @Test func pipelinedSavesAreAnsweredAndDurableOrUnansweredAndAbsentOnEveryConnectionAtSIGTERM() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let runs = try (0..<Self.connections).map { connection in
            try PipelinedSaves(client: server.connect(timeout: 10), connection: connection, count: Self.savesPerConnection)
        }
        let done = DispatchGroup()
        for run in runs { run.start(in: done) }
        // SIGTERM once every connection has had some answers, while the saves still pour in.
        let deadline = Date().addingTimeInterval(10)
        while runs.contains(where: { $0.answerCount < 20 }) && Date() < deadline { usleep(1_000) }
        let status = try server.stop(signal: SIGTERM)
        #expect(status == 0, "exit status after SIGTERM; log: \(server.log.suffix(2000))")
        #expect(done.wait(timeout: .now() + 15) == .success, "a connection was neither answered nor closed")

        let file = try StoreFileContents(server.storeURL)
        let stored = Set((file.json["objects"]["Tag"].array ?? []).compactMap { $0["values"]["label"].string })
        var unanswered = 0
        for run in runs {
            let answers = run.answers()
            // Answered: a prefix of the requests, in order, each a success that is in the file.
            for (index, answer) in answers.enumerated() {
                let id = index + 1
                #expect(answer["id"].int == id, "connection \(run.connection): answer \(index) is \(answer)")
                #expect(answer["result"]["ids"]["t"].string != nil,
                        "connection \(run.connection): request \(id) received before the shutdown was not carried out: \(answer)")
                if answer["result"]["ids"]["t"].string != nil {
                    #expect(stored.contains(PipelinedSaves.label(run.connection, id)), "connection \(run.connection): answered save \(id) is not in the file")
                }
            }
            // Not answered: not carried out.
            let missing = (answers.count + 1...Self.savesPerConnection).filter { stored.contains(PipelinedSaves.label(run.connection, $0)) }
            #expect(missing.isEmpty, "connection \(run.connection): unanswered saves in the file: \(missing.prefix(5))")
            unanswered += Self.savesPerConnection - answers.count
        }
        #expect(stored.count == Self.connections * Self.savesPerConnection - unanswered)
        #expect(unanswered > 0, "the shutdown came after every save was answered: nothing of the rule was tested")
    }
}

/// One connection's pipelined saves: a thread sends them all (until the server closes), another
/// reads the answers until the server closes.
private final class PipelinedSaves: @unchecked Sendable {
    // @unchecked: the sending thread calls only `client.send` (the socket, no other state); the
    // reading thread only `client.readLine`; `received` is read and written with `lock` held.
    let connection: Int
    private let client: LineClient
    private let lines: [[UInt8]]
    private let lock = NSLock()
    /// JSON holds Foundation values: kept as the lines' text, parsed when asked.
    private var received: [String] = []

    init(client: LineClient, connection: Int, count: Int) {
        self.client = client
        self.connection = connection
        lines = (1...count).map { id in
            let line = #"{"jsonrpc":"2.0","id":\#(id),"method":"save","params":{"insert":[{"id":"t","entity":"Tag","values":{"label":"\#(Self.label(connection, id))"}}]}}"#
            return Array(line.utf8) + [UInt8(ascii: "\n")]
        }
    }

    static func label(_ connection: Int, _ id: Int) -> String { "connection \(connection) save \(id)" }

    var answerCount: Int { lock.withLock { received.count } }

    func answers() -> [JSON] { lock.withLock { received }.map { (try? JSON(parsing: $0)) ?? JSON(["unparsable": $0]) } }

    func start(in group: DispatchGroup) {
        group.enter()
        Thread { [self] in
            defer { group.leave() }
            for chunk in stride(from: 0, to: lines.count, by: 10) {
                guard (try? client.send(Array(lines[chunk..<min(chunk + 10, lines.count)].joined()))) != nil else { return }
            }
        }.start()
        group.enter()
        Thread { [self] in
            defer { group.leave() }
            while let line = try? client.readLine(timeout: 10) {
                lock.withLock { received.append(line) }
            }
        }.start()
    }
}
