import Foundation

/// One fuzz input: its bytes (nil when empty) and their count.
public typealias FuzzTest = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ test: FuzzTest
) -> CInt

/// Hands the process to libFuzzer with `test` as the target, and exits with its status.
///
/// SwiftPM gives every executable a `main` of its own (the module's entry point), so the
/// targets cannot use the `main` of libFuzzer's runtime; they call its driver from theirs.
public func runFuzzer(_ test: FuzzTest) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, test))
}
