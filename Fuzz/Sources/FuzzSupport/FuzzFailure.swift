import Foundation

/// Stops the fuzzer on a wrong answer (not a crash of the code under test, but an answer
/// that breaks one of its promises): prints what was wrong, then aborts, so libFuzzer saves
/// the input as a crash reproducer.
public func fuzzFailure(_ message: String) -> Never {
    FileHandle.standardError.write(Data("FUZZ FAILURE: \(message)\n".utf8))
    abort()
}
