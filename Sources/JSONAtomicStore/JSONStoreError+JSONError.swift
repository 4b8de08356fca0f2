import JSONCore

extension JSONStoreError {
    /// The store's error for a JSON error in `file`: a syntax error stays one (with the file
    /// named), a shape a reader refused makes the file not a store file (with the place in
    /// the reason).
    init(_ error: JSONError, file: String) {
        switch error {
        case .invalidJSON(let offset, let line, let column, let reason):
            self = .invalidJSON(file: file, offset: offset, line: line, column: column, reason: reason)
        case .unexpectedShape:
            self = .notAStoreFile(file: file, reason: error.description)
        }
    }
}
