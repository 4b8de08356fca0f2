import NIOCore

/// Where a save line goes to be made durable and answered: a writer thread
/// (``WriterThreadJournal``, the docserver's shape) or the event loop itself (``LoopJournal``,
/// Redis's shape).
protocol FloorJournal: Sendable {
    /// Takes `record` (the request line) into the journal; `handler` answers once it is durable.
    func submit(_ update: UpdateLine, record: ByteBuffer, handler: SaveFloorHandler, context: ChannelHandlerContext)
}

/// Reads each line as an update (``UpdateLine``) and hands it to the journal; writes the
/// answer the journal gives back, flushed at once (one request is in flight per client).
final class SaveFloorHandler: ChannelInboundHandler, @unchecked Sendable {
    // Sendable: one per channel, used on its event loop only.
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let journal: FloorJournal
    private var context: ChannelHandlerContext?

    init(journal: FloorJournal) { self.journal = journal }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = unwrapInboundIn(data)
        guard let update = UpdateLine(line) else {
            // Answered at once, so possibly before an earlier save's answer: the benchmark sends
            // only updates, and a floor keeps no order it does not need.
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"not an update"}}"# + "\n")),
                                  promise: nil)
            return
        }
        journal.submit(update, record: line, handler: self, context: context)
    }

    /// Called on the event loop once the save is durable.
    func answer(_ bytes: ByteBuffer) {
        context?.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
    }
}
