// swift-tools-version:6.0
import PackageDescription

// Benchmarks live in their own package so that the main package's tests never build them.
// Run in release mode: swift run -c release --package-path Benchmarks GraphCoreBenchmarks
let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "DocumentStore", path: "..")],
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
    ],
    swiftLanguageModes: [.v6]
)
