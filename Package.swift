// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "DocumentStore",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "GraphCore", targets: ["GraphCore"]),
        .library(name: "JSONAtomicStore", targets: ["JSONAtomicStore"]),
    ],
    targets: [
        .systemLibrary(
            name: "CYajl",
            pkgConfig: "yajl",
            providers: [.apt(["libyajl-dev"])]
        ),
        .target(
            name: "GraphCore"
        ),
        .target(
            name: "JSONAtomicStore",
            dependencies: ["GraphCore", "CYajl"]
        ),
        .testTarget(
            name: "GraphCoreTests",
            dependencies: ["GraphCore"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "JSONAtomicStoreTests",
            dependencies: ["JSONAtomicStore", "GraphCore"],
            exclude: ["Fixtures"]
        ),
        // Test support: a process that saves in a loop, killed at random by the crash test.
        .executableTarget(
            name: "JSONStoreCrashWriter",
            dependencies: ["JSONAtomicStore", "GraphCore"],
            path: "Tests/JSONStoreCrashWriter"
        ),
        .testTarget(
            name: "CYajlTests",
            dependencies: ["CYajl"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
