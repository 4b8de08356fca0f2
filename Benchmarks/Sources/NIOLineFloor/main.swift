import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

// The least a SwiftNIO line server does per request on this machine: one event loop, a
// decoder that cuts lines, and a handler that answers each line with the same bytes (given as
// the first argument: a real `get` answer) and flushes once per read, as the docserver does.
// No parsing, no lookup, no encoding: what is left is SwiftNIO and the kernel's TCP path.
// `ServerBenchmarks --get --nio-floor` runs it beside the docserver and Redis.
//
//   NIOLineFloor '<answer line without its newline>'
//
// Prints `listening on 127.0.0.1:PORT`; runs until SIGTERM (or any signal that ends a process).

/// Cuts the inbound bytes into lines (without their newline).
struct LineCutter: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")),
              let line = buffer.readSlice(length: newline - buffer.readerIndex) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 1)
        context.fireChannelRead(NIOAny(line))
        return .continue
    }
}

/// Answers every line with `answer`; flushes when the read is done.
final class FixedAnswer: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    // Sendable: one per channel, used on its event loop only.
    private let answer: ByteBuffer
    private var pending = false

    init(answer: ByteBuffer) { self.answer = answer }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.write(wrapOutboundOut(answer), promise: nil)
        pending = true
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if pending {
            pending = false
            context.flush()
        }
    }
}

let arguments = CommandLine.arguments
let text = arguments.count > 1 ? arguments[1] : #"{"jsonrpc":"2.0","id":1,"result":{"objects":[],"missing":[]}}"#
var answerBytes = ByteBuffer(string: text)
answerBytes.writeString("\n")
let answer = answerBytes
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let server = try ServerBootstrap(group: group)
    .serverChannelOption(ChannelOptions.backlog, value: 256)
    .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandlers(ByteToMessageHandler(LineCutter()), FixedAnswer(answer: answer))
        }
    }
    .bind(host: "127.0.0.1", port: 0).wait()
print("listening on 127.0.0.1:\(server.localAddress?.port ?? 0)")
fflush(nil)  // every stream: the benchmark reads the line through a pipe
try server.closeFuture.wait()
