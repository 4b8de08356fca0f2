/// Something an import of an Xcode model could not carry over as it was: what, where (the
/// line of the `contents` file), and whether the model is still usable.
///
/// ```
/// SampleModel.xcdatamodel/contents:12: warning: Car.owner: fetched property 'recent' is not supported; left out
/// ```
public struct ModelImportNote: Sendable, Hashable, CustomStringConvertible {
    /// How serious a note is.
    public enum Severity: String, Sendable, Hashable {
        /// The model is usable; this part of the file was carried differently or left out.
        case warning
        /// The model cannot be used as the file describes it.
        case error
    }

    /// Whether the model is still usable.
    public var severity: Severity
    /// The file the note is about (a `contents` file, or a bundle's `.xccurrentversion`).
    public var file: String
    /// The line in `file` (1-based), when known.
    public var line: Int?
    /// The entity, property, configuration or fetch request concerned (`Entity.property`), if any.
    public var subject: String?
    /// What was found and what the import did with it.
    public var message: String

    /// Makes a note.
    public init(_ severity: Severity, file: String, line: Int?, subject: String?, message: String) {
        self.severity = severity
        self.file = file
        self.line = line
        self.subject = subject
        self.message = message
    }

    /// `file:line: severity: subject: message`, as compilers write diagnostics.
    public var description: String {
        let place = line.map { "\(file):\($0)" } ?? file
        let about = subject.map { "\($0): " } ?? ""
        return "\(place): \(severity.rawValue): \(about)\(message)"
    }
}
