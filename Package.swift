// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "DocumentStore",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "GraphCore", targets: ["GraphCore"]),
        .library(name: "JSONCore", targets: ["JSONCore"]),
        .library(name: "JSONAtomicStore", targets: ["JSONAtomicStore"]),
        .library(name: "DocumentProtocol", targets: ["DocumentProtocol"]),
        .library(name: "DocumentServer", targets: ["DocumentServer"]),
        .library(name: "DocumentClient", targets: ["DocumentClient"]),
        .library(name: "PostgresStore", targets: ["PostgresStore"]),
        .executable(name: "docserver", targets: ["docserver"]),
    ],
    // What a build leaves out (docs/OPERATIONS.md, "The first start"). The default build has no
    // trait on: a server of JSON store files without BoringSSL, whose two copies (swift-nio-ssl's
    // and swift-crypto's, 772 C files) are most of a full first build's 887 steps. The tests, the
    // container and CI turn every trait on (`--enable-all-traits`; scripts/build.sh --full), as
    // Benchmarks/ does; Fuzz/ turns on Users. Each trait brings in one dependency, so that a build
    // pays only for what it names; PostgreSQL brings in both copies of BoringSSL (postgres-nio
    // depends on swift-nio-ssl and swift-crypto), so with it TLS and Users cost little more.
    traits: [
        .trait(name: "PostgreSQL",
               description: "docserver serves and copies postgresql:// stores (the PostgresStore target, postgres-nio)."),
        .trait(name: "TLS",
               description: "TLS on the line protocol: serve's --tls-* options and DocumentClient's ClientTLS (swift-nio-ssl)."),
        .trait(name: "Users",
               description: "The users file: serve --users and docserver user add, secrets hashed with PBKDF2 (swift-crypto)."),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", "1.33.2"..<"1.34.0"),
        // TLS to PostgreSQL (`sslmode`): already in the graph through postgres-nio.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        // The users file's secret hashes (HMAC-SHA256 for PBKDF2): already in the graph through postgres-nio.
        .package(url: "https://github.com/apple/swift-crypto.git", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
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
        // Strict streaming JSON over yajl. GraphCore only for `ValueForm`, the JSON form of
        // attribute values that the store file and the wire share.
        .target(
            name: "JSONCore",
            dependencies: ["CYajl", "GraphCore"]
        ),
        .target(
            name: "JSONAtomicStore",
            dependencies: ["GraphCore", "JSONCore"]
        ),
        // The protocol both ends share: line framing, envelopes, the one error type, the
        // object wire form.
        .target(
            name: "DocumentProtocol",
            dependencies: ["GraphCore", "JSONCore", .product(name: "NIOCore", package: "swift-nio")]
        ),
        // The server as a library. It sees its store only through GraphCore's capability
        // protocols (JournaledStore, SharedDatabaseStore): it depends on no store that links a
        // database driver; `docserver` registers the stores it serves.
        .target(
            name: "DocumentServer",
            dependencies: [
                "DocumentProtocol",
                "GraphCore",
                "JSONCore",
                "JSONAtomicStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["TLS"])),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Users"])),
                .product(name: "CryptoExtras", package: "swift-crypto", condition: .when(traits: ["Users"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HashTreeCollections", package: "swift-collections"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        .target(
            name: "DocumentClient",
            dependencies: [
                "DocumentProtocol",
                "GraphCore",
                "JSONCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["TLS"])),
            ]
        ),
        // The incremental store "PostgreSQL": the object graph in a PostgreSQL database, one
        // table per entity hierarchy, predicates translated to SQL where SQL can say them.
        // Always declared (its tests and other packages may use it); docserver uses it only with
        // the PostgreSQL trait, so a default build of docserver never builds it.
        .target(
            name: "PostgresStore",
            dependencies: [
                "GraphCore",
                "JSONCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "docserver",
            dependencies: [
                "DocumentServer",
                "GraphCore",
                "JSONCore",
                "JSONAtomicStore",
                .target(name: "PostgresStore", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            resources: [.embedInCode("Resources/sample.model.json")],
            // jemalloc, as Redis links it: the server's threads free what others allocated (a
            // request read on an event loop, applied on the writer), which glibc's malloc pays
            // for with a lock per free of another thread's arena (Benchmarks/README.md, "The
            // allocator").
            linkerSettings: [.linkedLibrary("jemalloc")]
        ),
        .testTarget(
            name: "DocumentServerTests",
            dependencies: [
                "DocumentServer",
                "DocumentProtocol",
                "GraphCore",
                "JSONCore",
                "JSONAtomicStore",
                "ServerTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOTestUtils", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "DocumentClientTests",
            dependencies: [
                "DocumentClient", "DocumentProtocol", "GraphCore", "JSONCore", "JSONAtomicStore", "ServerTestSupport",
                "PostgresStore", "PostgresTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "DocumentProtocolTests",
            dependencies: [
                "DocumentProtocol", "GraphCore", "JSONCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOTestUtils", package: "swift-nio"),
            ]
        ),
        // Test support shared by DocumentServerTests and DocumentClientTests: a `docserver`
        // process started by a test, temporary directories, the harness's errors.
        .target(
            name: "ServerTestSupport",
            path: "Tests/ServerTestSupport"
        ),
        .testTarget(
            name: "GraphCoreTests",
            dependencies: ["GraphCore", "ServerTestSupport"],
            exclude: ["Fixtures", "Predicates/Fixtures"]
        ),
        .testTarget(
            name: "JSONCoreTests",
            dependencies: ["JSONCore", "GraphCore"]
        ),
        .testTarget(
            name: "JSONAtomicStoreTests",
            dependencies: ["JSONAtomicStore", "JSONCore", "GraphCore", "ServerTestSupport"],
            exclude: ["Fixtures"]
        ),
        // Test support: a process that saves in a loop, killed at random by the crash test.
        .executableTarget(
            name: "JSONStoreCrashWriter",
            dependencies: ["JSONAtomicStore", "GraphCore"],
            path: "Tests/JSONStoreCrashWriter"
        ),
        // The PostgreSQL store against a real PostgreSQL cluster that the tests start (and
        // install from Debian's packages when it is missing).
        .testTarget(
            name: "PostgresStoreTests",
            dependencies: [
                "PostgresStore", "GraphCore", "ServerTestSupport", "PostgresTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Test support shared by PostgresStoreTests and DocumentClientTests: a throwaway
        // PostgreSQL cluster (installed from Debian's packages when missing).
        .target(
            name: "PostgresTestSupport",
            dependencies: ["ServerTestSupport"],
            path: "Tests/PostgresTestSupport"
        ),
        .testTarget(
            name: "CYajlTests",
            dependencies: ["CYajl"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
