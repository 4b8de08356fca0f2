import Testing
@testable import JSONAtomicStore
