// swift-tools-version: 6.2
import PackageDescription

let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

let package = Package(
    name: "ImageCacheBench",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ImagePipeline", targets: ["ImagePipeline"]),
        .library(name: "OriginServer", targets: ["OriginServer"]),
        .library(name: "Workloads", targets: ["Workloads"]),
        .library(name: "Replay", targets: ["Replay"]),
        .executable(name: "imagecache-bench", targets: ["imagecache-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.20.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.60.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.1.0"),
    ],
    targets: [
        // libvips, through a header of plain functions wrapping its variadic calls.
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]
        ),
        .target(
            name: "ImagePipeline",
            dependencies: [
                "CVips",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "OriginServer",
            dependencies: [
                "ImagePipeline",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // zlib, for gzip-compressed traces.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(
            name: "Workloads",
            dependencies: ["ImagePipeline", "CZlib", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        .target(
            name: "Replay",
            dependencies: [
                "ImagePipeline", "OriginServer", "Workloads", "CZlib",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "imagecache-bench",
            dependencies: [
                "Replay", "ImagePipeline",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "ImagePipelineTests", dependencies: ["ImagePipeline"], swiftSettings: strict),
        .testTarget(name: "WorkloadsTests", dependencies: ["Workloads"], swiftSettings: strict),
        .testTarget(
            name: "LoadingTests",
            dependencies: ["ImagePipeline", "OriginServer", .product(name: "AsyncHTTPClient", package: "async-http-client")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ImageCacheBenchTests",
            dependencies: ["Replay", "imagecache-bench"],
            swiftSettings: strict
        ),
    ]
)
