import Foundation
import ServerTestSupport

/// An HTTP answer read off a real socket: status, headers (names in lower case) and body.
struct HTTPReply {
    let status: Int
    let headers: [String: String]
    let body: String

    /// Splits the bytes of one or more answers (`Connection: close` ends the last).
    static func parseAll(_ bytes: [UInt8]) throws -> [HTTPReply] {
        var rest = String(decoding: bytes, as: UTF8.self)[...]
        var replies: [HTTPReply] = []
        while !rest.isEmpty {
            guard let end = rest.range(of: "\r\n\r\n") else { throw HarnessError("no end of head in \(rest.prefix(200).debugDescription)") }
            let lines = rest[..<end.lowerBound].components(separatedBy: "\r\n")
            let parts = lines[0].split(separator: " ", maxSplits: 2)
            guard parts.count >= 2, let status = Int(parts[1]) else { throw HarnessError("bad status line \(lines[0].debugDescription)") }
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let length = Int(headers["content-length"] ?? "0") ?? 0
            let bodyStart = end.upperBound
            let bodyBytes = rest[bodyStart...].utf8.prefix(length)
            replies.append(HTTPReply(status: status, headers: headers, body: String(decoding: bodyBytes, as: UTF8.self)))
            rest = rest[rest.utf8.index(bodyStart, offsetBy: bodyBytes.count)...]
        }
        return replies
    }

    /// The value of the sample of `name` with exactly `labels` (`method="save",outcome="ok"`; "" for none) in a `/metrics` text.
    func metric(_ name: String, _ labels: String = "") -> Double? {
        let prefix = labels.isEmpty ? name + " " : name + "{" + labels + "} "
        for line in body.split(separator: "\n") where line.hasPrefix(prefix) {
            return Double(line.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}

/// Sends `request` (the whole request text) to 127.0.0.1:`port` and reads the answers until the server closes.
func httpExchange(port: Int, _ request: String, timeout: Double = 10) throws -> [HTTPReply] {
    let client = try LineClient(port: UInt16(port), timeout: timeout)
    try client.send(request)
    return try HTTPReply.parseAll(client.bytesUntilClosed(timeout: timeout))
}

/// `method path` on 127.0.0.1:`port`, one request on its own connection.
func http(_ path: String, port: Int, method: String = "GET", body: String = "") throws -> HTTPReply {
    let request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
    guard let reply = try httpExchange(port: port, request).first else { throw HarnessError("no answer to \(method) \(path)") }
    return reply
}
