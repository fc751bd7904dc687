// swift-tools-version: 6.2
import PackageDescription

let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

let package = Package(
    name: "ImageCacheBench",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CacheEngine", targets: ["CacheEngine"]),
        .library(name: "ImagePipeline", targets: ["ImagePipeline"]),
        .library(name: "HTTPImageLoading", targets: ["HTTPImageLoading"]),
        .library(name: "PipelineTesting", targets: ["PipelineTesting"]),
        .library(name: "ImageSynthesis", targets: ["ImageSynthesis"]),
        .library(name: "OriginServer", targets: ["OriginServer"]),
        .library(name: "Workloads", targets: ["Workloads"]),
        .library(name: "CacheSimulation", targets: ["CacheSimulation"]),
        .library(name: "Bench", targets: ["Bench"]),
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
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
    ],
    targets: [
        // libvips, through a header of plain functions wrapping its variadic calls.
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]
        ),
        // libjpeg, for a JPEG that fits its box and so needs none of libvips' pipeline.
        .target(name: "CJPEG", linkerSettings: [.linkedLibrary("jpeg")]),
        // Eviction policies, CacheCore, limits, MemoryCache, the disk index model, locks:
        // what both the live pipeline and the simulator are built on.
        .target(name: "CacheEngine", dependencies: ["CPrefetch", "CThreadSlot"], swiftSettings: strict),
        // The CPU's prefetch hint, for the simulator's loop, which knows its next keys.
        .systemLibrary(name: "CPrefetch"),
        // A thread-local word, for MemoryCache to find its thread's record without a call.
        .target(name: "CThreadSlot"),
        // What an app adopts: keys, memory and disk tiers, loading, decoding, pressure.
        .target(
            name: "ImagePipeline",
            dependencies: [
                "CacheEngine", "CVips", "CJPEG",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The real `ImageFetcher` (AsyncHTTPClient), apart so what needs no network
        // (fuzzers, tier benchmarks) never builds NIO and its TLS.
        .target(
            name: "HTTPImageLoading",
            dependencies: [
                "ImagePipeline",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // Test doubles: a scripted fetcher and a fault-injecting file system.
        .target(name: "PipelineTesting", dependencies: ["ImagePipeline"], swiftSettings: strict),
        // Deterministic photo-like and hostile images, for the origin and tests.
        .target(name: "ImageSynthesis", dependencies: ["ImagePipeline", "CVips"], swiftSettings: strict),
        .target(
            name: "OriginServer",
            dependencies: [
                "ImagePipeline", "ImageSynthesis", "CZlib",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOPosix", package: "swift-nio"),
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
        // Simulation traces, the simulator, offline bounds, synthetic and binary traces,
        // recorded workloads turned into simulation traces.
        .target(
            name: "CacheSimulation",
            dependencies: [
                "ImagePipeline", "Workloads", .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "DequeModule", package: "swift-collections"),
            ], swiftSettings: strict),
        // The bench: matrices, live replay, stress, reliability, the suite, gate, reports.
        .target(
            name: "Bench",
            dependencies: [
                "ImagePipeline", "HTTPImageLoading", "CacheSimulation", "ImageSynthesis", "PipelineTesting", "OriginServer", "Workloads", "CZlib",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Yams", package: "Yams"),
            ],
            // The committed pipeline files (`presets/` links here), read by `PresetLibrary`.
            resources: [.copy("Pipelines/Presets")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "imagecache-bench",
            dependencies: [
                "Bench", "CacheSimulation", "ImagePipeline", "ImageSynthesis",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        // One test target per library target; LoadingTests holds the HTTP fetcher and the
        // origin together (each is the other's other end), ImageCacheBenchTests the bench and its CLI.
        .testTarget(name: "CacheEngineTests", dependencies: ["CacheEngine"], swiftSettings: strict),
        .testTarget(
            name: "ImagePipelineTests",
            // CacheSimulation: the pipeline's decision log replayed by the simulator (ObservedOrderTests).
            dependencies: ["CVips", "ImagePipeline", "CacheSimulation", "ImageSynthesis", "PipelineTesting"], swiftSettings: strict),
        .testTarget(
            name: "CacheSimulationTests",
            dependencies: ["CacheEngine", "ImagePipeline", "Workloads", "CacheSimulation", "PipelineTesting"], swiftSettings: strict),
        .testTarget(name: "WorkloadsTests", dependencies: ["Workloads"], swiftSettings: strict),
        .testTarget(
            name: "LoadingTests",
            dependencies: [
                "ImagePipeline", "HTTPImageLoading", "ImageSynthesis", "PipelineTesting", "OriginServer",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ImageCacheBenchTests",
            dependencies: ["Bench", "CacheSimulation", "ImageSynthesis", "PipelineTesting", "imagecache-bench"],
            swiftSettings: strict
        ),
    ]
)
