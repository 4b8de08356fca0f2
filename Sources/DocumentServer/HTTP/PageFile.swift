/// One file of the page served at `/` on the HTTP port.
struct PageFile: Sendable {
    /// The path it is served at.
    let path: String
    /// Where it comes from in the project (`web/…`, `clients/js/src/…`).
    let source: String
    let contentType: String
    let text: String
}

/// The page at `/` (`web/index.html`, its script and style) and the JavaScript client it uses
/// (`clients/js/src`, under `/docstore/`): embedded in the binary by `scripts/embed-page.py`
/// (`PageFiles.swift`), so a release binary or the Docker image serves the page with nothing
/// beside it. The page calls `/rpc` over a WebSocket from the same origin.
enum PageFiles {
    /// Adds a `GET` route for each file.
    static func addRoutes(to router: inout HTTPRouter) {
        for file in all {
            let answer = HTTPAnswer(status: .ok, contentType: file.contentType, body: Array(file.text.utf8),
                                    headers: [("X-Content-Type-Options", "nosniff"),
                                              ("Content-Security-Policy", "default-src 'self'; connect-src 'self' ws: wss:; frame-ancestors 'none'")])
            router.add(.GET, file.path) { _ in answer }
        }
    }
}
