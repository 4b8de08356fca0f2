import Foundation
import PackagePlugin

/// Generates `PageFiles.swift` for `DocumentServer` at build time: the page served at `/` on the
/// HTTP port (the files of `web/`) and the JavaScript client it imports (`clients/js/src/*.js`,
/// served under `/docstore/`), embedded as string literals by the `EmbedPage` tool. So the binary
/// serves the page wherever it is installed, and the embedded copy is never stale: SwiftPM runs
/// the tool again whenever one of the files changes.
@main
struct EmbedPagePlugin: BuildToolPlugin {
    /// The suffixes served from `web/`, with their content types (the tool knows them too).
    static let webSuffixes: Set<String> = ["html", "js", "css", "svg"]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        let files = try Self.pageFiles(in: root)
        let output = context.pluginWorkDirectoryURL.appending(path: "PageFiles.swift")
        return [
            .buildCommand(
                displayName: "Embedding the page (web/, clients/js/src) in PageFiles.swift",
                executable: try context.tool(named: "EmbedPage").url,
                arguments: [output.path(percentEncoded: false), root.path(percentEncoded: false)]
                    + files.map { $0.path(percentEncoded: false) },
                inputFiles: files,
                outputFiles: [output]
            ),
        ]
    }

    /// `web/`'s served files, then `clients/js/src/*.js`, each folder in name order.
    static func pageFiles(in root: URL) throws -> [URL] {
        func listed(_ folder: String, _ keep: (URL) -> Bool) throws -> [URL] {
            let directory = root.appending(path: folder)
            return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
                .filter(keep)
                .sorted { $0.lastPathComponent < $1.lastPathComponent }
        }
        return try listed("web") { webSuffixes.contains($0.pathExtension) }
            + listed("clients/js/src") { $0.pathExtension == "js" }
    }
}
