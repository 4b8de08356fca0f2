/// What an error says to a user (its description); empty for no error.
func message(of error: (any Error)?) -> String {
    error.map { String(describing: $0) } ?? ""
}
