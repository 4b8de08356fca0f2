import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

// The least a SwiftNIO line server does per request on this machine: one event loop, a
// decoder that cuts lines, and a handler per connection. What is left is SwiftNIO, the
// kernel's TCP path and, for saves, the journal's `pwrite` and `fdatasync`.
//
//   NIOLineFloor '<answer line without its newline>'
//       answers each line with the same bytes (a real `get` answer), flushed once per read:
//       no parsing, no lookup, no encoding. `ServerBenchmarks --get --nio-floor`.
//   NIOLineFloor --saves JOURNAL --writer thread|loop
//       reads each line as an update of one object (its ID and version), appends the line to
//       JOURNAL, makes it durable and answers as the docserver does (the next version, the
//       commit's number): on a writer thread with group commits (`thread`, the docserver's
//       shape) or on the event loop once per turn (`loop`, Redis's). `ServerBenchmarks
//       --saves --nio-floor`.
//
// Prints `listening on 127.0.0.1:PORT`; runs until SIGTERM (or any signal that ends a process).

let arguments = Array(CommandLine.arguments.dropFirst())
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let makeHandlers: @Sendable () -> [ChannelHandler]
do {
    if arguments.first == "--saves" {
        guard arguments.count == 4, arguments[2] == "--writer", ["thread", "loop"].contains(arguments[3]) else {
            throw FloorError("usage: NIOLineFloor --saves JOURNAL --writer thread|loop")
        }
        let file = try FloorJournalFile(path: arguments[1])
        let journal: FloorJournal = arguments[3] == "thread" ? WriterThreadJournal(file: file) : LoopJournal(file: file)
        makeHandlers = { [ByteToMessageHandler(LineCutter()), SaveFloorHandler(journal: journal)] }
    } else {
        let text = arguments.first ?? #"{"jsonrpc":"2.0","id":1,"result":{"objects":[],"missing":[]}}"#
        var answerBytes = ByteBuffer(string: text)
        answerBytes.writeString("\n")
        let answer = answerBytes
        makeHandlers = { [ByteToMessageHandler(LineCutter()), FixedAnswer(answer: answer)] }
    }
} catch {
    print("NIOLineFloor: \(error)")
    exit(2)
}
let server = try ServerBootstrap(group: group)
    .serverChannelOption(ChannelOptions.backlog, value: 256)
    .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandlers(makeHandlers())
        }
    }
    .bind(host: "127.0.0.1", port: 0).wait()
print("listening on 127.0.0.1:\(server.localAddress?.port ?? 0)")
fflush(nil)  // every stream: the benchmark reads the line through a pipe
try server.closeFuture.wait()
