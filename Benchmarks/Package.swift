// swift-tools-version: 6.2
// Microbenchmarks, kept out of the root package so `swift test` never builds
// the harness. Run from this folder: `swift package benchmark`.
import PackageDescription

let package = Package(
    name: "ImageCacheBenchBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "ImageCacheBench", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.20.0"),
    ],
    targets: [
        .target(
            name: "Tolerances",
            dependencies: [.product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/Tolerances"
        ),
        .executableTarget(
            name: "MemoryTier",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "Tolerances",
                .product(name: "ImagePipeline", package: "ImageCacheBench"),
                .product(name: "CacheSimulation", package: "ImageCacheBench"),
                .product(name: "PipelineTesting", package: "ImageCacheBench"),
                .product(name: "ImageSynthesis", package: "ImageCacheBench"),
            ],
            path: "Benchmarks/MemoryTier",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Loading",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "Tolerances",
                .product(name: "ImagePipeline", package: "ImageCacheBench"),
                .product(name: "HTTPImageLoading", package: "ImageCacheBench"),
                .product(name: "OriginServer", package: "ImageCacheBench"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Benchmarks/Loading",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "DiskTier",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "Tolerances",
                .product(name: "ImagePipeline", package: "ImageCacheBench"),
            ],
            path: "Benchmarks/DiskTier",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Decoding",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "Tolerances",
                .product(name: "ImagePipeline", package: "ImageCacheBench"),
                .product(name: "ImageSynthesis", package: "ImageCacheBench"),
            ],
            path: "Benchmarks/Decoding",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "TraceReading",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "Tolerances",
                .product(name: "Workloads", package: "ImageCacheBench"),
            ],
            path: "Benchmarks/TraceReading",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
