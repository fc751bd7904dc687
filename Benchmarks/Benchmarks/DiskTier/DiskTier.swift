import Benchmark
import Tolerances
import Foundation
import ImagePipeline
#if canImport(Glibc)
import Glibc
#endif

/// The disk tier's speed targets, each beside its peer in the same run: key
/// derivation with the SHA-256 file name; a 50 KB hit against plain
/// open/read/close of the same file; writes against plain write-then-rename.
let benchmarks: @Sendable () -> Void = {
    defer { Tolerances.apply() }
    // Shapes from real API responses (made-up ids): long NewsAPI URLs, Unsplash
    // sizes with volatile parameters, Aladin covers, open-market thumbnails.
    let urls = [
        "https://npr.brightspotcdn.com/dims4/default/1a2b3c4/2147483647/strip/true/crop/3000x1688+0+0/resize/1400x788!/format/jpeg/quality/85/?url=http%3A%2F%2Fnpr-brightspot.s3.amazonaws.com%2Fab%2F12%2Fphoto-one.jpg",
        "https://s.yimg.com/ny/api/res/1.2/AbCdEfGh--/YXBwaWQ9aGlnaGxhbmRlcjt3PTEyMDA7aD02NzU-/https://media.zenfs.com/en/reuters-finance.com/0123456789abcdef",
        "https://images.unsplash.com/photo-1500000000000-abcdef123456?crop=entropy&cs=tinysrgb&fit=max&fm=jpg&ixid=MnwxMjA3fDB8MXxhbGx8MXx8fHx8fHwyfHwxNjI&ixlib=rb-1.2.1&q=80&w=400",
        "https://image.aladin.co.kr/product/3228/30/coversum/893746075x_1.jpg",
        "  https://s3.ap-northeast-2.amazonaws.com/media.yagom-academy.kr/training-resources/9/20221118/ab  cd_thumb.png",
        "https://a.espncdn.com/combiner/i?img=%2Fphoto%2F2019%2F0519%2Fr545001_1296x729_16-9.jpg&w=1140&cquality=80&format=jpg",
    ]
    let processing = ProcessingOptions(ThumbnailRequest(width: 120, height: 80, scale: 3), format: .jpeg)

    for strategy in CacheKeyStrategy.Base.allCases.map({ CacheKeyStrategy($0, includesProcessing: true) }) {
        Benchmark("key_\(strategy)_sha256-name",
                  configuration: .init(metrics: [.wallClock, .mallocCountTotal], scalingFactor: .kilo)) { benchmark in
            for index in benchmark.scaledIterations {
                blackHole(DiskFileName.of(strategy.key(for: urls[index % urls.count], processing: processing)))
            }
        }
    }
    Benchmark("sha256-name_only", configuration: .init(metrics: [.wallClock, .mallocCountTotal], scalingFactor: .kilo)) { benchmark in
        for index in benchmark.scaledIterations { blackHole(DiskFileName.of(urls[index % urls.count])) }
    }

    let payload = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    let keys = (0..<1_000).map { "https://cdn.example/photos/\($0).jpg" }
    let diskMetrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal]

    // Both read sides are prepared once, outside any measurement: 1,000 entries
    // each, in the page cache, as a warm disk tier would be.
    let readDirectory = temporaryDirectory()
    let readCache = try? DiskCache(.init(directory: readDirectory + "/cache", byteLimit: 1 << 30, sync: .none))
    for key in keys { readCache?.store(payload, for: key) }
    let plainPaths = keys.map { readDirectory + "/" + DiskFileName.of($0) }
    for path in plainPaths { _ = FileManager.default.createFile(atPath: path, contents: payload) }

    Benchmark("disk hit 50 KB (DiskCache)", configuration: .init(metrics: diskMetrics, scalingFactor: .kilo)) { benchmark in
        for index in benchmark.scaledIterations { blackHole(readCache?.data(for: keys[index % keys.count])) }
    }
    Benchmark("disk hit 50 KB (plain open/read/close)", configuration: .init(metrics: diskMetrics, scalingFactor: .kilo)) { benchmark in
        for index in benchmark.scaledIterations { blackHole(plainRead(plainPaths[index % plainPaths.count])) }
    }

    Benchmark("disk write 50 KB (DiskCache, no fsync)", configuration: .init(metrics: diskMetrics, scalingFactor: .kilo)) { benchmark in
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = try DiskCache(.init(directory: directory, byteLimit: 1 << 30, sync: .none))
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations { cache.store(payload, for: keys[index % keys.count]) }
    }
    Benchmark("disk write 50 KB (plain write-then-rename)", configuration: .init(metrics: diskMetrics, scalingFactor: .kilo)) { benchmark in
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let paths = keys.map { directory + "/" + DiskFileName.of($0) }
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations { plainWrite(payload, to: paths[index % paths.count], sequence: index) }
    }
    Benchmark("disk eviction sweep 1,000 → 700 entries", configuration: .init(metrics: [.wallClock, .mallocCountTotal], maxIterations: 20)) { benchmark in
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = try DiskCache(.init(directory: directory, byteLimit: 1 << 30, countLimit: 1_000, sync: .none))
        for key in keys { cache.store(payload, for: key) }
        cache.flushMaintenance()
        benchmark.startMeasurement()
        cache.store(payload, for: "one more")
        cache.flushMaintenance()
        benchmark.stopMeasurement()
        precondition(cache.count == 700)
    }
}

/// What any disk cache must at least do for a hit: open, size, read, close.
func plainRead(_ path: String) -> Data? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return nil }
    var data = Data(count: Int(status.st_size))
    let count = data.count
    let read = data.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, 0) }
    return read == count ? data : nil
}

/// What any crash-safe write must at least do: a new file, the bytes, a rename.
func plainWrite(_ payload: Data, to path: String, sequence: Int) {
    let temporary = "\(path).\(sequence).tmp"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { return }
    _ = payload.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
    rename(temporary, path)
}
