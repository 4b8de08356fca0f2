// swift-tools-version:6.1
import PackageDescription

// libFuzzer targets for the parsers that read untrusted input: the store file, its journal, the wire
// (line framing, JSON-RPC requests, parameter checks, the store thread), the predicate
// language and Xcode model files. They live in their own package so that the main package's build and tests
// never see them; scripts/fuzz.sh builds them with `-sanitize=fuzzer,address` into
// .build-fuzz and runs them (see Fuzz/README.md).

/// A library of the main package (the repository's root).
func documentStore(_ product: String) -> Target.Dependency { .product(name: product, package: "DocumentStore") }

let package = Package(
    name: "Fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The Users trait: UsersFuzzer checks hello's secrets against the users file's hashes.
        .package(name: "DocumentStore", path: "..", traits: ["Users"]),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [documentStore("GraphCore"), documentStore("JSONAtomicStore")],
            resources: [.embedInCode("Resources/sample.model.json"), .embedInCode("Resources/empty.store.json")]
        ),
        .executableTarget(
            name: "StoreFileFuzzer",
            dependencies: ["FuzzSupport", documentStore("GraphCore"), documentStore("JSONCore"), documentStore("JSONAtomicStore")]
        ),
        .executableTarget(
            name: "WireFuzzer",
            dependencies: [
                "FuzzSupport", documentStore("GraphCore"), documentStore("JSONCore"), documentStore("JSONAtomicStore"),
                documentStore("DocumentProtocol"), documentStore("DocumentServer"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "JournalFuzzer",
            dependencies: ["FuzzSupport", documentStore("GraphCore"), documentStore("JSONAtomicStore")]
        ),
        .executableTarget(
            name: "PredicateFuzzer",
            dependencies: ["FuzzSupport", documentStore("GraphCore")]
        ),
        .executableTarget(
            name: "ImportLineFuzzer",
            dependencies: ["FuzzSupport", documentStore("GraphCore"), documentStore("JSONAtomicStore")]
        ),
        .executableTarget(
            name: "UsersFuzzer",
            dependencies: [
                "FuzzSupport", documentStore("GraphCore"), documentStore("JSONCore"), documentStore("DocumentServer"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "XcodeModelFuzzer",
            dependencies: ["FuzzSupport", documentStore("GraphCore")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
