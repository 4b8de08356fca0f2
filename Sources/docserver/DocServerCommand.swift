import ArgumentParser
import DocumentServer

/// `docserver`: serve a store over the line protocol, check a store file, ping a server.
@main
struct DocServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docserver",
        abstract: "A JSON document store server: one object graph, shared over a line protocol (JSON-RPC 2.0 over TCP).",
        discussion: """
            The protocol is described in docs/PROTOCOL.md, the store file in docs/FILE_FORMAT.md, the model \
            file in docs/MODEL.md.
            """,
        // The traits say what this build can do (Package.swift): PostgreSQL, TLS, Users.
        version: "docserver \(DocumentServer.version), traits: \(PackageTrait.summary)",
        subcommands: [ServeCommand.self, CheckCommand.self, PingCommand.self, CompactCommand.self, MigrateCommand.self,
                      ModelCommand.self, CopyCommand.self, CodegenCommand.self, ExportCommand.self, ImportCommand.self,
                      BackupCommand.self, RestoreCommand.self, UserCommand.self],
        defaultSubcommand: nil
    )
}
