// swift-tools-version: 6.2
// libFuzzer targets, kept out of the root package: they only link with
// `--sanitize=fuzzer`. Build and run them with `scripts/fuzz` (debug builds,
// so `@testable import` reaches the internal parsers).
import PackageDescription

let target = { (name: String, dependencies: [Target.Dependency]) in
    Target.executableTarget(name: name, dependencies: dependencies, path: "Sources/\(name)")
}

let package = Package(
    name: "ImageCacheBenchFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "ImageCacheBench", path: "..")],
    targets: [
        target("FuzzTraceReader", [.product(name: "Workloads", package: "ImageCacheBench")]),
        target("FuzzHAR", [.product(name: "Workloads", package: "ImageCacheBench")]),
        target("FuzzServiceResponses", [.product(name: "Workloads", package: "ImageCacheBench")]),
        target("FuzzKeys", [.product(name: "ImagePipeline", package: "ImageCacheBench")]),
        target("FuzzDiskEntry", [.product(name: "ImagePipeline", package: "ImageCacheBench")]),
        target("FuzzDirectJPEG", [.product(name: "ImagePipeline", package: "ImageCacheBench")]),
        target("FuzzDelimitedTrace", ["CacheSimulation", "Workloads"].map { .product(name: $0, package: "ImageCacheBench") }),
        target("FuzzEndToEnd", ["CacheSimulation", "ImagePipeline", "Workloads"].map { .product(name: $0, package: "ImageCacheBench") }),
    ]
)
