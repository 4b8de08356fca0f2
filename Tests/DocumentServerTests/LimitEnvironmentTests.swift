import Foundation
import ServerTestSupport
import Testing

/// Every limit of `docs/PROTOCOL.md` (Limits) is a `docserver serve` option and an environment
/// variable named after it, named in `serve --help`, checked, and applied. The limits come from
/// the document's table, so a limit documented without its variable fails here.
@Suite struct LimitEnvironmentTests {
    /// The options of the Limits table of PROTOCOL.md (`--max-line-bytes`, …).
    static func documentedLimitOptions() throws -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)
        guard let start = text.range(of: "\n## Limits\n") else { throw HarnessError("PROTOCOL.md has no Limits section") }
        let section = text[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        var options: [String] = []
        for line in section[..<end].split(separator: "\n") where line.hasPrefix("|") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
            guard cells.count > 2 else { continue }
            let cell = cells[2].trimmingCharacters(in: .whitespaces)
            if cell.hasPrefix("`--"), cell.hasSuffix("`") { options.append(String(cell.dropFirst().dropLast())) }
        }
        return options
    }

    static func variable(_ option: String) -> String {
        "DOCSERVER_" + option.dropFirst(2).uppercased().replacingOccurrences(of: "-", with: "_")
    }

    @Test func everyDocumentedLimitHasItsVariableNamedInServeHelp() throws {
        let options = try Self.documentedLimitOptions()
        #expect(options.count >= 13, "\(options)")
        #expect(options.contains("--max-line-bytes"))
        let help = try runDocServer(["serve", "--help"]).output
        let flattened = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for option in options {
            #expect(flattened.contains(option), "\(option) in serve --help")
            #expect(flattened.contains("[env: \(Self.variable(option))]"), "\(Self.variable(option)) in serve --help")
        }
    }

    @Test func everyLimitsVariableIsCheckedLikeItsOption() throws {
        for option in try Self.documentedLimitOptions() {
            let variable = Self.variable(option)
            let result = try runDocServer(["serve", "--port", "0"], environment: [variable: "-7"])
            #expect(result.status == 64, "\(variable)=-7: \(result.errors)")
            #expect(result.errors.contains(variable), "the error names \(variable): \(result.errors)")
            let notANumber = try runDocServer(["serve", "--port", "0"], environment: [variable: "many"])
            #expect(notANumber.status == 64 && notANumber.errors.contains(variable), "\(variable)=many: \(notANumber.errors)")
        }
    }

    @Test func everyLimitsVariableIsAppliedAndAnOptionWinsOverIt() throws {
        let options = try Self.documentedLimitOptions()
        // Values inside every limit's range, different from the defaults.
        var environment: [String: String] = [:]
        for (index, option) in options.enumerated() { environment[Self.variable(option)] = "\(2000 + index)" }
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--max-connections", "77"], environment: environment)
        let log = server.log
        for (index, option) in options.enumerated() {
            let name = String(option.dropFirst(2))
            let expected = option == "--max-connections" ? "77" : option == "--request-time-limit" ? "\(2000 + index).0" : "\(2000 + index)"
            #expect(log.contains("\(name)=\(expected)"), "\(option) from \(Self.variable(option)): \(log)")
        }
        try server.stop()
    }

    @Test func maxLineBytesFromTheEnvironmentRefusesALongerLine() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, environment: ["DOCSERVER_MAX_LINE_BYTES": "1024"])
        let client = try server.connect()
        try client.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":""# + String(repeating: "y", count: 1100) + #""}}"#)
        let text = String(decoding: try client.bytesUntilClosed(), as: UTF8.self)
        #expect(text.contains(#""limit":1024,"what":"line""#), "\(text)")
        try server.stop()
    }
}
