// swift-tools-version:6.1
import PackageDescription

// Benchmarks live in their own package so that the main package's tests never build them.
// Run in release mode: swift run -c release --package-path Benchmarks GraphCoreBenchmarks
// The server benchmark: swift run -c release --package-path Benchmarks ServerBenchmarks [--quick]
// RemoteStore (a context on a docserver): swift run -c release --package-path Benchmarks RemoteStoreBenchmarks [--objects N]
// docserver on PostgreSQL beside pgbench: swift run -c release --package-path Benchmarks PostgresBenchmarks [--seconds S] [--clients N]

/// A library of the main package (the repository's root).
func documentStore(_ product: String) -> Target.Dependency { .product(name: product, package: "DocumentStore") }

let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Every trait: the docserver the benchmarks build when none is given
        // (`--package-path Benchmarks --product docserver`) serves PostgreSQL stores, TLS and users.
        .package(name: "DocumentStore", path: "..", traits: ["PostgreSQL", "TLS", "Users"]),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    ],
    targets: [
        .target(name: "BenchmarkSupport", dependencies: [documentStore("GraphCore")]),
        .executableTarget(
            name: "GraphCoreBenchmarks",
            dependencies: ["BenchmarkSupport", documentStore("GraphCore"), documentStore("JSONAtomicStore")]
        ),
        .executableTarget(
            name: "JSONStoreBenchmarks",
            dependencies: ["BenchmarkSupport", documentStore("GraphCore"), documentStore("JSONCore"), documentStore("JSONAtomicStore")]
        ),
        .executableTarget(
            name: "ServerBenchmarks",
            dependencies: [
                "BenchmarkSupport", documentStore("GraphCore"), documentStore("JSONCore"), documentStore("JSONAtomicStore"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                // --transports: TLS and WebSocket clients.
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .executableTarget(name: "PostgresBenchmarks", dependencies: ["BenchmarkSupport"]),
        .executableTarget(
            name: "NIOLineFloor",
            dependencies: [.product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]
        ),
        .executableTarget(
            name: "RemoteStoreBenchmarks",
            dependencies: ["BenchmarkSupport", documentStore("GraphCore"), documentStore("DocumentClient")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
