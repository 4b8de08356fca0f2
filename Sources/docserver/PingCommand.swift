import ArgumentParser
import Foundation
import JSONCore
import NIOPosix

struct PingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ping",
        abstract: "Check that a server answers (for health checks).",
        discussion: """
            Connects, sends hello (with the token, if any) and ping, and exits 0 when the answer is "pong"; \
            otherwise exits 1 and says why (connection refused, timeout, unauthorized, …). \
            With --http PATH it GETs PATH on the server's HTTP port instead (serve --http-port; /healthz or /readyz) \
            and exits 0 on 200. DOCSERVER_HOST, DOCSERVER_PORT, DOCSERVER_HTTP_PORT and DOCSERVER_AUTH_TOKEN stand for \
            the options.
            """
    )

    @Option(help: ArgumentHelp("The server's address. [default: 127.0.0.1]", valueName: "address"))
    var host: String?

    @Option(help: ArgumentHelp("The server's port. [default: 7878]", valueName: "port"))
    var port: Int?

    @Option(help: ArgumentHelp("The server's token.", valueName: "token"))
    var authToken: String?

    @Option(help: ArgumentHelp("Seconds to wait for the answer.", valueName: "seconds"))
    var timeout: Double = 5

    @Option(help: ArgumentHelp("GET this path on the HTTP port (/healthz, /readyz) instead of ping on the line protocol; exit 0 on 200.", valueName: "path"))
    var http: String?

    @Option(help: ArgumentHelp("The server's HTTP port, for --http.", valueName: "port"))
    var httpPort: Int?

    func run() async throws {
        let host = host ?? Environment.string("DOCSERVER_HOST") ?? "127.0.0.1"
        let port = port ?? Environment.int("DOCSERVER_PORT") ?? 7878
        let token = authToken ?? Environment.string("DOCSERVER_AUTH_TOKEN")
        if let http { return try await runHTTP(path: http, host: host) }
        do {
            let answers = try await exchange(host: host, port: port, token: token)
            guard answers.count == 2, answers[1].contains(#""result":"pong""#) else {
                let answer = answers.first { $0.contains(#""error""#) } ?? answers.last ?? "(nothing)"
                throw PingFailure("unexpected answer: \(answer.prefix(300))")
            }
            print("pong from \(host):\(port)")
        } catch let error as NIOConnectionError {
            let reasons = error.connectionErrors.map { "\($0.error)" }
            let reason = reasons.isEmpty ? "\(error)" : reasons.joined(separator: "; ")
            FileHandle.standardError.write(Data("docserver ping \(host):\(port): cannot connect: \(reason)\n".utf8))
            throw ExitCode(1)
        } catch {
            FileHandle.standardError.write(Data("docserver ping \(host):\(port): \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// Sends hello and ping, returns the two answer lines.
    private func exchange(host: String, port: Int, token: String?) async throws -> [String] {
        var params: [(key: String, value: JSONValue)] = [("client", .string("docserver ping"))]
        if let token { params.append(("token", .string(token))) }
        let hello = JSONValue.object([("jsonrpc", .string("2.0")), ("id", .integer(1)), ("method", .string("hello")),
                                      ("params", .object(params))]).jsonText + "\n"
        let request = hello + #"{"jsonrpc":"2.0","id":2,"method":"ping"}"# + "\n"
        return try await LineExchange.send(request, host: host, port: port, answers: 2, timeout: timeout)
    }
}

struct PingFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
