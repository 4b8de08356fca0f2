import DocumentProtocol
@testable import DocumentServer
import Foundation
import GraphCore
import JSONAtomicStore
import Logging
import NIOCore
import NIOEmbedded
import Testing

/// When a connection's answers are flushed: once for all the lines of one read, after the
/// event loop has handled the other connections that were ready (as Redis writes its replies
/// before it sleeps), never one flush per line.
@Suite("Answer flushes")
struct AnswerFlushTests {
    /// Counts the flushes that pass it towards the socket.
    private final class FlushCounter: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
        var flushes = 0

        func flush(context: ChannelHandlerContext) {
            flushes += 1
            context.flush()
        }
    }

    /// A connection's pipeline, as the server builds it, on an embedded channel.
    private final class Fixture {
        let directory: URL
        let graph: StoreGraph
        let worker: StoreWorker
        let channel = EmbeddedChannel()
        let counter = FlushCounter()

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("answer-flush-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            JSONAtomicStore.register()
            let modelFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../Sources/docserver/Resources/sample.model.json").standardized
            let model = try ObjectModel(contentsOf: modelFile)
            let cache = WireObjectCache()
            graph = try StoreGraph(model: model, storeType: JSONAtomicStore.storeType,
                                   storeURL: directory.appendingPathComponent("store.json"), cache: cache)
            worker = StoreWorker(graph: graph)
            let logger = Logger(label: "test")
            let shared = try SharedState(model: model, graph: graph, worker: worker, cache: cache,
                                         configuration: ServerConfiguration(), logger: logger)
            try channel.pipeline.syncOperations.addHandlers(
                counter,
                ByteToMessageHandler(LineFrameDecoder(maximumLength: 1 << 20)),
                ConnectionHandler(session: ConnectionSession(shared: shared, logger: logger), worker: worker, logger: logger))
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        }

        deinit {
            _ = try? channel.finish()
            graph.close()
            try? FileManager.default.removeItem(at: directory)
        }

        /// The answers flushed so far, one string per line.
        func answers() throws -> [String] {
            var lines: [String] = []
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
                lines += String(buffer: buffer).split(separator: "\n").map(String.init)
            }
            return lines
        }
    }

    @Test("the answers to the lines of one read go out with one flush, once the event loop has run its queued work")
    func linesOfOneReadAreFlushedOnce() throws {
        let fixture = try Fixture()
        let pings = (1...3).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"ping"}"# + "\n" }.joined()
        try fixture.channel.writeInbound(ByteBuffer(string: pings))
        // Read and answered, not flushed yet: other ready connections are read first.
        #expect(try fixture.answers().isEmpty)
        #expect(fixture.counter.flushes == 0)
        fixture.channel.embeddedEventLoop.run()
        #expect(try fixture.answers() == (1...3).map { #"{"jsonrpc":"2.0","id":\#($0),"result":"pong"}"# })
        #expect(fixture.counter.flushes == 1)
    }

    @Test("a get answered on the connection's thread is flushed with the read it came in")
    func aGetIsFlushedAfterItsRead() throws {
        let fixture = try Fixture()
        try fixture.channel.writeInbound(ByteBuffer(string: #"{"jsonrpc":"2.0","id":7,"method":"get","params":{"ids":[]}}"# + "\n"))
        fixture.channel.embeddedEventLoop.run()
        #expect(try fixture.answers() == [#"{"jsonrpc":"2.0","id":7,"result":{"objects":[],"missing":[]}}"#])
        #expect(fixture.counter.flushes == 1)
    }
}
