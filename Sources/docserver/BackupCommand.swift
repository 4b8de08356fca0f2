import ArgumentParser
import Foundation
import JSONCore

/// `docserver backup`: asks a running server for a consistent copy of its store.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Have a running server copy its store, while saves go on, into a new directory on its machine.",
        discussion: """
            Sends the `backup` method (docs/PROTOCOL.md): the server copies its JSON store's snapshot file and the \\
            journal and history records after it, up to the newest commit it has served, into DIR (created; it must \\
            not hold a file), and writes DIR/manifest.json last: the commit (seq), the base snapshot's commit, the \\
            time, each file's size and CRC-32C. `docserver restore` makes a store from it. DIR is a path on the \\
            server's machine. Exit status: 0 with the manifest's summary; 1 when the server refused or failed \\
            (the reason is printed); 2 when it cannot be reached.
            """
    )

    @Option(help: ArgumentHelp("The server, HOST:PORT. [default: 127.0.0.1:7878, or DOCSERVER_HOST and DOCSERVER_PORT]", valueName: "host:port"))
    var server: String?

    @Option(help: ArgumentHelp("The backup directory: an absolute path on the server's machine.", valueName: "dir"))
    var to: String

    @Option(help: ArgumentHelp("The server's token.", valueName: "token"))
    var authToken: String?

    @Option(help: ArgumentHelp("Seconds to wait for the copy.", valueName: "seconds"))
    var timeout: Double = 600

    func run() async throws {
        var host = Environment.string("DOCSERVER_HOST") ?? "127.0.0.1"
        var port = Environment.int("DOCSERVER_PORT") ?? 7878
        if let server {
            guard let colon = server.lastIndex(of: ":"), let number = Int(server[server.index(after: colon)...]),
                  (1...65535).contains(number) else {
                throw ValidationError("--server must be HOST:PORT, not \(server)")
            }
            host = String(server[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            port = number
        }
        let directory = to.hasPrefix("/") ? to : FileManager.default.currentDirectoryPath + "/" + to
        let token = authToken ?? Environment.string("DOCSERVER_AUTH_TOKEN")
        var hello: [(key: String, value: JSONValue)] = [("client", .string("docserver backup"))]
        if let token { hello.append(("token", .string(token))) }
        let request = JSONValue.object([("jsonrpc", .string("2.0")), ("id", .integer(1)), ("method", .string("hello")),
                                        ("params", .object(hello))]).jsonText + "\n"
            + JSONValue.object([("jsonrpc", .string("2.0")), ("id", .integer(2)), ("method", .string("backup")),
                                ("params", .object([("to", .string(directory))]))]).jsonText + "\n"
        let answers: [String]
        do {
            answers = try await LineExchange.send(request, host: host, port: port, answers: 2, timeout: timeout)
        } catch {
            FileHandle.standardError.write(Data("docserver backup \(host):\(port): \(error)\n".utf8))
            throw ExitCode(2)
        }
        guard let last = answers.last, let json = try? Array(last.utf8).withUnsafeBytes({ try JSONValue.parse($0) }),
              let result = json["result"] else {
            let answer = answers.first { $0.contains(#""error""#) } ?? answers.last ?? "(nothing)"
            FileHandle.standardError.write(Data("docserver backup: the server refused: \(answer.prefix(2000))\n".utf8))
            throw ExitCode(1)
        }
        print("backup of \(host):\(port) at commit \(result["seq"]?.jsonText ?? "?") (base \(result["baseSeq"]?.jsonText ?? "?")) in \(directory): "
              + (result["files"].map { $0.jsonText } ?? ""))
    }
}
