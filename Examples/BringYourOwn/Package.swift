// swift-tools-version: 6.2
// Your own eviction policy and your own cache, measured on a recorded app
// workload by ImageCacheBench's simulator and live cache. Depends on the
// library products by path, as a package of yours would by URL.
//   swift run --package-path Examples/BringYourOwn bring-your-own [TRACE]
import PackageDescription

let package = Package(
    name: "BringYourOwn",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "ImageCacheBench", path: "../..")],
    targets: [
        .executableTarget(
            name: "bring-your-own",
            dependencies: ["CacheEngine", "CacheSimulation", "Workloads", "ImagePipeline"].map {
                .product(name: $0, package: "ImageCacheBench")
            },
            path: "Sources/BringYourOwn",
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
    ]
)
