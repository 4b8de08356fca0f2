import ArgumentParser
import Foundation
import NIOCore
import NIOPosix

/// `docserver ping --http PATH`: a GET of PATH on the HTTP port (`--http-port`), exit 0 on
/// 200. For a container's health check, whose image has neither curl nor wget.
extension PingCommand {
    /// GETs `path` on `host:port`; returns the status code and the body's first line.
    func httpGet(host: String, port: Int, path: String) async throws -> (status: Int, line: String) {
        let request = "GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nUser-Agent: docserver ping\r\nConnection: close\r\n\r\n"
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.milliseconds(Int64(timeout * 1000)))
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        let seconds = timeout
        let received = try await withThrowingTaskGroup(of: String.self) { group in
            group.addTask {
                try await channel.executeThenClose { inbound, outbound in
                    try await outbound.write(ByteBuffer(string: request))
                    var received = ""
                    for try await chunk in inbound {
                        received += String(buffer: chunk)
                        if received.utf8.count > 64 << 10 { break }
                    }
                    return received
                }
            }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                throw PingFailure("no answer within \(seconds) s")
            }
            defer { group.cancelAll() }
            guard let answer = try await group.next() else { throw PingFailure("no answer") }
            return answer
        }
        // "HTTP/1.1 200 OK\r\n…\r\n\r\nbody"
        let statusLine = received.prefix { $0 != "\r" && $0 != "\n" }
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            throw PingFailure("not an HTTP answer: \(received.prefix(200).debugDescription)")
        }
        let body = received.range(of: "\r\n\r\n").map { received[$0.upperBound...] } ?? ""
        return (status, String(body.prefix { $0 != "\n" }.prefix(300)))
    }

    /// The `--http` check: exits 0 when `path` answers 200, else 1 with why.
    func runHTTP(path: String, host: String) async throws {
        guard let port = httpPort ?? Environment.int("DOCSERVER_HTTP_PORT") else {
            FileHandle.standardError.write(Data("docserver ping --http: no HTTP port: set --http-port or DOCSERVER_HTTP_PORT\n".utf8))
            throw ExitCode(1)
        }
        let target = path.hasPrefix("/") ? path : "/" + path
        do {
            let (status, line) = try await httpGet(host: host, port: port, path: target)
            guard status == 200 else { throw PingFailure("\(target) answered \(status): \(line)") }
            print("\(target) on \(host):\(port): \(line)")
        } catch let error as NIOConnectionError {
            let reasons = error.connectionErrors.map { "\($0.error)" }
            FileHandle.standardError.write(Data("docserver ping \(host):\(port)\(target): cannot connect: \(reasons.isEmpty ? "\(error)" : reasons.joined(separator: "; "))\n".utf8))
            throw ExitCode(1)
        } catch {
            FileHandle.standardError.write(Data("docserver ping \(host):\(port)\(target): \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
