// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "DocumentStore",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "GraphCore", targets: ["GraphCore"]),
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
        .testTarget(
            name: "GraphCoreTests",
            dependencies: ["GraphCore"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "CYajlTests",
            dependencies: ["CYajl"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
