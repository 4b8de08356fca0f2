#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Stops the fuzzer on a wrong answer (not a crash of the code under test, but an answer
/// that breaks one of its promises): prints what was wrong, then aborts, so libFuzzer saves
/// the input as a crash reproducer.
public func fuzzFailure(_ message: String) -> Never {
    fputs("FUZZ FAILURE: \(message)\n", stderr)
    abort()
}
