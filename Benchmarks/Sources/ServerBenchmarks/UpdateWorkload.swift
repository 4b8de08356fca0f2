import NIOCore

/// A small durable save: an `update` of one Song's `plays` (or `title`, so that a `fetch` by
/// `plays` running beside it keeps its answers), with the version the client last saw. Each connection owns its own Song, so no save conflicts with another; the new
/// version comes back in the answer's `versions`, and the next save uses it. An answer
/// passes when it is a result naming the Song's new version.
final class UpdateWorkload: ConnectionWorkload {
    private static let current = Array(#""current":"#.utf8)
    private let id: String
    private let versionKey: [UInt8]
    private var version: Int
    private var plays: Int
    private let changesTitle: Bool

    init(id: String, version: Int, plays: Int, changesTitle: Bool = false) {
        self.id = id
        self.versionKey = Array((#""versions":{"# + jsonString(id) + ":").utf8)
        self.version = version
        self.plays = plays
        self.changesTitle = changesTitle
    }

    func nextRequest() -> ByteBuffer {
        plays += 1
        let values = changesTitle ? #""title":"take \#(plays)""# : #""plays":\#(plays)"#
        return ByteBuffer(string: #"{"jsonrpc":"2.0","id":1,"method":"save","params":{"update":[{"id":"# + jsonString(id)
            + #","version":\#(version),"values":{\#(values)}}]}}"# + "\n")
    }

    func check(_ line: UnsafeRawBufferPointer) -> Bool {
        if ResponseBytes.hasPrefix(line, ResponseBytes.result), let newVersion = ResponseBytes.integer(after: versionKey, in: line) {
            version = newVersion
            return true
        }
        // A conflict names the current version: take it so that one error does not become all of them.
        if let current = ResponseBytes.integer(after: Self.current, in: line) { version = current }
        return false
    }

    /// Connection `n` updates `songs[n]`, starting from its version in `versions`; its
    /// `title` when `changesTitle`, else its `plays`.
    static func factory(songs: [String], versions: [String: Int], changesTitle: Bool = false) -> WorkloadFactory {
        { connection in
            let id = songs.isEmpty ? "" : songs[connection % songs.count]
            return UpdateWorkload(id: id, version: versions[id] ?? 1, plays: 1_000_000 * (connection + 1), changesTitle: changesTitle)
        }
    }
}
