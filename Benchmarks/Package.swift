// swift-tools-version:6.0
import PackageDescription

// Benchmarks live in their own package so that the main package's tests never build them.
// Run in release mode: swift run -c release --package-path Benchmarks GraphCoreBenchmarks
// The server benchmark: swift run -c release --package-path Benchmarks ServerBenchmarks [--quick]
// RemoteStore (a context on a docserver): swift run -c release --package-path Benchmarks RemoteStoreBenchmarks [--objects N]
let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "DocumentStore", path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .target(
            name: "BenchmarkSupport",
            dependencies: [.product(name: "GraphCore", package: "DocumentStore")]
        ),
        .executableTarget(
            name: "GraphCoreBenchmarks",
            dependencies: ["BenchmarkSupport", .product(name: "GraphCore", package: "DocumentStore")]
        ),
        .executableTarget(
            name: "JSONStoreBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "GraphCore", package: "DocumentStore"),
                .product(name: "JSONAtomicStore", package: "DocumentStore"),
            ]
        ),
        .executableTarget(
            name: "ServerBenchmarks",
            dependencies: [
                .product(name: "GraphCore", package: "DocumentStore"),
                .product(name: "JSONAtomicStore", package: "DocumentStore"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "RemoteStoreBenchmarks",
            dependencies: [
                .product(name: "GraphCore", package: "DocumentStore"),
                .product(name: "DocumentClient", package: "DocumentStore"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
