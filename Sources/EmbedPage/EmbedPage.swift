import Foundation

// EmbedPage OUTPUT ROOT FILE...: writes OUTPUT, a Swift file of `DocumentServer` holding each FILE
// (a path in ROOT, under web/ or clients/js/src/) as a `PageFile`: served at `/` for
// web/index.html, `/NAME` for web/'s other files and `/docstore/NAME` for the client's.
// Run at build time by the EmbedPagePlugin build tool plugin, never by hand.

/// The content type of a served file, by its suffix.
func contentType(_ suffix: String) -> String? {
    switch suffix {
    case "html": "text/html; charset=utf-8"
    case "js": "text/javascript; charset=utf-8"
    case "css": "text/css; charset=utf-8"
    case "svg": "image/svg+xml"
    default: nil
    }
}

/// A raw multi-line string literal holding `text` exactly: as many `#` as it takes so that
/// nothing in the text closes the literal or starts an escape.
func literal(_ text: String) -> String {
    var hashes = "#"
    while text.contains("\"\"\"" + hashes) || text.contains("\\" + hashes) { hashes += "#" }
    return hashes + "\"\"\"\n" + text + "\n\"\"\"" + hashes
}

/// A string literal for a short text without quotes, backslashes or newlines (paths, types).
func plain(_ text: String) -> String { "\"" + text + "\"" }

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("EmbedPage: \(message)\n".utf8))
    exit(1)
}

/// The tool's entry point; a type rather than top-level code, so that the file builds with or
/// without `-parse-as-library` (flags such as `scripts/fuzz.sh`'s reach build tools too).
@main
enum EmbedPage {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 3 else { fail("usage: EmbedPage OUTPUT ROOT FILE...") }
        let output = URL(fileURLWithPath: arguments[1])
        let root = URL(fileURLWithPath: arguments[2]).standardizedFileURL.path
        var entries: [String] = []
        for path in arguments.dropFirst(3) {
            let url = URL(fileURLWithPath: path).standardizedFileURL
            guard url.path.hasPrefix(root + "/") else { fail("\(path) is not in \(root)") }
            let source = String(url.path.dropFirst(root.count + 1))
            guard let type = contentType(url.pathExtension) else { fail("\(source): no content type for .\(url.pathExtension)") }
            let route: String
            if source == "web/index.html" {
                route = "/"
            } else if source.hasPrefix("web/") {
                route = "/" + url.lastPathComponent
            } else {
                route = "/docstore/" + url.lastPathComponent
            }
            for text in [source, route] where text.contains(where: { $0 == "\"" || $0 == "\\" || $0.isNewline }) {
                fail("\(text): a name with a quote, a backslash or a newline")
            }
            guard let data = FileManager.default.contents(atPath: url.path) else { fail("cannot read \(source)") }
            guard let text = String(data: data, encoding: .utf8) else { fail("\(source) is not UTF-8") }
            let normalized = text.replacingOccurrences(of: "\r\n", with: "\n")
            entries.append("        // \(source)\n        PageFile(path: \(plain(route)), source: \(plain(source)), contentType: \(plain(type)), text: \(literal(normalized))),")
        }
        let swift = "// Generated at build time by the EmbedPage tool (Plugins/EmbedPagePlugin) from web/ and clients/js/src.\n\n"
            + "/// The page's files, embedded in the binary.\n"
            + "extension PageFiles {\n"
            + "    static let all: [PageFile] = [\n" + entries.joined(separator: "\n") + "\n    ]\n}\n"
        do {
            try Data(swift.utf8).write(to: output, options: .atomic)
        } catch {
            fail("cannot write \(output.path): \(error)")
        }
    }
}
