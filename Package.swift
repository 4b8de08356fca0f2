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
            dependencies: ["JSONAtomicStore", "GraphCore"]
        ),
        .testTarget(
            name: "CYajlTests",
            dependencies: ["CYajl"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
