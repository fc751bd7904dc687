import Foundation
import Logging
import Testing
import CacheEngine
@testable import ImagePipeline
import PipelineTesting

@Suite("DiskCache")
struct DiskCacheTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("icb-disk-\(UUID().uuidString)").path

    func open(byteLimit: Int = 1 << 20, countLimit: Int = .max, files: any FileSystem = PosixFileSystem(),
              sync: DiskCache.SyncPolicy = .none) throws -> DiskCache {
        var logger = Logger(label: "test")
        logger.logLevel = .critical  // the faults below are expected
        return try DiskCache(.init(directory: directory, byteLimit: byteLimit, countLimit: countLimit,
                                   sync: sync, fileSystem: files, logger: logger))
    }

    /// Opens the directory again after the cache before let it go. Its lock can outlive its
    /// close for a moment: a `flock` stays held while any copy of the descriptor is open, and a
    /// child that another test is spawning holds copies from its fork until its exec, which on
    /// a loaded machine can take a while. So a reopen that finds it locked looks again.
    func reopen(byteLimit: Int = 1 << 20) throws -> DiskCache {
        for _ in 0..<3_000 {
            do { return try open(byteLimit: byteLimit) } catch DiskCacheError.locked { Thread.sleep(forTimeInterval: 0.01) }
        }
        return try open(byteLimit: byteLimit)
    }

    func payload(_ seed: Int, _ count: Int = 1_000) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 7) })
    }

    func files() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { !$0.hasPrefix(".") }
    }

    func entrySize(_ key: String, _ count: Int = 1_000) -> Int { count + key.utf8.count + DiskEntryFormat.trailerSize }

    @Test func roundTrip() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = try open(sync: .fileAndDirectory)
        #expect(cache.data(for: "https://a/1.jpg") == nil)
        #expect(cache.store(payload(1), for: "https://a/1.jpg"))
        #expect(cache.store(payload(2, 0), for: "https://a/empty.jpg", kind: .thumbnail))
        #expect(cache.data(for: "https://a/1.jpg") == payload(1))
        #expect(cache.data(for: "https://a/empty.jpg") == Data())
        #expect(files().sorted() == [DiskFileName.of("https://a/1.jpg"), DiskFileName.of("https://a/empty.jpg")].sorted())
        #expect(cache.totalBytes == entrySize("https://a/1.jpg") + entrySize("https://a/empty.jpg", 0))
        cache.store(payload(3), for: "https://a/1.jpg")
        #expect(cache.data(for: "https://a/1.jpg") == payload(3))
        cache.remove("https://a/1.jpg")
        #expect(cache.data(for: "https://a/1.jpg") == nil)
        cache.removeAll()
        #expect(cache.count == 0 && files().isEmpty)
        let stats = cache.statistics
        #expect((stats.hits, stats.misses, stats.writes) == (3, 2, 3))
    }

    @Test("over the limit, least recently accessed entries go, down to 70%")
    func lowWaterEviction() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keys = (0..<11).map { "https://cdn.example/\(100 + $0).jpg" }  // equal lengths, equal sizes
        let cache = try open(byteLimit: 10 * entrySize(keys[0]))
        for (index, key) in keys.prefix(10).enumerated() { cache.store(payload(index), for: key) }
        cache.flushMaintenance()
        #expect(cache.count == 10)  // exactly at the limit
        _ = cache.data(for: keys[0])  // 0 and 1 become the most recent
        _ = cache.data(for: keys[1])
        cache.store(payload(10), for: keys[10])
        cache.flushMaintenance()
        #expect(cache.totalBytes == 7 * entrySize(keys[0]))  // exactly the 70% mark
        #expect(cache.count == 7)
        #expect(cache.data(for: keys[0]) != nil && cache.data(for: keys[1]) != nil)
        #expect(cache.data(for: keys[2]) == nil && cache.data(for: keys[5]) == nil)  // oldest went first
        #expect(cache.statistics.evictions == 4)
        #expect(files().count == 7)
    }

    @Test func countLimit() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = try open(countLimit: 5)
        for index in 0..<6 { cache.store(payload(index), for: "k\(index)") }
        cache.flushMaintenance()
        #expect(cache.count == 3)  // 70% of 5, rounded down
    }

    @Test("reopening rebuilds the index; write order seeds the recency")
    func rebuild() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let cache = try open()
            for index in 0..<6 { cache.store(payload(index), for: "k\(index)") }
            #expect(FileManager.default.createFile(atPath: directory + "/\(DiskFileName.of("x")).99.tmp", contents: Data([1, 2])))
        }
        let reopened = try reopen(byteLimit: 6 * entrySize("k0"))
        #expect(reopened.count == 6)
        #expect(reopened.totalBytes == 6 * entrySize("k0"))
        #expect(!files().contains { $0.hasSuffix(".tmp") })  // a crash's leftover is swept
        #expect(reopened.data(for: "k3") == payload(3))
        reopened.store(payload(9), for: "k9")
        reopened.flushMaintenance()
        #expect(reopened.data(for: "k0") == nil)  // the oldest write went first
        #expect(reopened.data(for: "k3") != nil)
    }

    @Test("a clean close keeps the access order for the next open; without it, write order")
    func recencySurvivesReopen() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let cache = try open()
            for index in 0..<6 { cache.store(payload(index), for: "k\(index)") }
            #expect(cache.data(for: "k0") == payload(0))  // k0 is now the most recently used
        }
        #expect(FileManager.default.fileExists(atPath: directory + "/.recency"))
        do {
            let reopened = try reopen(byteLimit: 6 * entrySize("k0"))
            reopened.store(payload(9), for: "k9")
            reopened.flushMaintenance()  // down to 70%: the three least recent go
            #expect(reopened.data(for: "k0") == payload(0))
            #expect(reopened.data(for: "k1") == nil && reopened.data(for: "k2") == nil && reopened.data(for: "k3") == nil)
        }
        // A crash writes no order: the saved one was used up when it was read, so write order rules.
        try FileManager.default.removeItem(atPath: directory + "/.recency")
        let afterCrash = try reopen(byteLimit: 4 * entrySize("k0"))
        afterCrash.store(payload(8), for: "k8")
        afterCrash.flushMaintenance()
        #expect(afterCrash.data(for: "k4") == nil)
    }

    @Test("close hands the directory over at once, with the access order; the closed cache misses and refuses writes")
    func close() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let next: DiskCache
        do {
            let first = try open()
            for index in 0..<6 { first.store(payload(index), for: "k\(index)") }
            #expect(first.data(for: "k0") == payload(0))  // k0 is now the most recently used
            first.close()
            first.close()  // twice does nothing
            // Still referenced, as by a task that has yet to end: the next launch opens all the same.
            next = try open(byteLimit: 6 * entrySize("k0"))
            #expect(first.data(for: "k0") == nil)
            #expect(!first.store(payload(7), for: "k7"))
            first.remove("k0")
            first.removeAll()
            #expect(files().count == 6 && !files().contains(DiskFileName.of("k7")))
        }
        // The closed cache's end wrote nothing: its order was saved already, and the next open took it.
        #expect(!FileManager.default.fileExists(atPath: directory + "/.recency"))
        next.store(payload(9), for: "k9")
        next.flushMaintenance()  // down to 70%: the three least recent of the saved order go
        #expect(next.data(for: "k0") == payload(0))
        #expect(next.data(for: "k1") == nil && next.data(for: "k2") == nil && next.data(for: "k3") == nil)
    }

    @Test("the last reference can go in a trim, on the maintenance queue: the cache closes there without waiting on itself")
    func lastReferenceInTrim() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The first removal of an entry file waits until the test lets it go.
        let holding = DispatchSemaphore(value: 0), released = DispatchSemaphore(value: 0), first = Locked(true)
        let files = FaultInjectingFileSystem(.init(beforeRemove: { path in
            let name = (path as NSString).lastPathComponent
            guard !name.hasPrefix("."), !name.hasSuffix(".tmp"),
                  first.withLock({ isFirst in defer { isFirst = false }; return isFirst }) else { return }
            holding.signal()
            released.wait()
        }))
        weak var closed: DiskCache?
        do {
            let cache = try open(byteLimit: 3 * entrySize("k0"), files: files)
            for index in 0..<4 { cache.store(payload(index), for: "k\(index)") }  // over the limit: a trim
            holding.wait()  // the trim is inside its first removal, holding the cache
            closed = cache
        }
        released.signal()
        for _ in 0..<10_000 where closed != nil { usleep(1_000) }
        #expect(closed == nil, "the cache was never released: its end waited on the queue it ran on")
        // The weak reference clears as the end begins; the end saves the recency order after it, so a
        // single look can come first (it did on a loaded machine, the suite beside a sanitizer run).
        let recency = directory + "/.recency"
        for _ in 0..<10_000 where !FileManager.default.fileExists(atPath: recency) { usleep(1_000) }
        #expect(FileManager.default.fileExists(atPath: recency))
    }

    @Test("a second opener of the same directory gets a clear error")
    func advisoryLock() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try open()
        #expect(throws: DiskCacheError.locked(directory: directory)) { try open() }
        withExtendedLifetime(first) {}
    }

    @Test("a flipped payload byte or a truncated file is a miss, deleted, never returned")
    func corruption() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = try open()
        cache.store(payload(1), for: "flip")
        cache.store(payload(2), for: "cut")
        let flipPath = directory + "/" + DiskFileName.of("flip")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: flipPath))
        bytes[500] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: flipPath))
        let cutPath = directory + "/" + DiskFileName.of("cut")
        try Data(contentsOf: URL(fileURLWithPath: cutPath)).prefix(700).write(to: URL(fileURLWithPath: cutPath))
        #expect(cache.data(for: "flip") == nil)
        #expect(cache.data(for: "cut") == nil)
        #expect(cache.statistics.corruptions == 2)
        #expect(files().isEmpty)
    }

    @Test("an entry holding another key's bytes is never served")
    func wrongKey() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = try open()
        cache.store(payload(1), for: "a")
        cache.store(payload(2), for: "b")
        try FileManager.default.removeItem(atPath: directory + "/" + DiskFileName.of("b"))
        try FileManager.default.copyItem(atPath: directory + "/" + DiskFileName.of("a"),
                                         toPath: directory + "/" + DiskFileName.of("b"))
        #expect(cache.data(for: "b") == nil)
        #expect(cache.data(for: "a") == payload(1))
        #expect(cache.statistics.corruptions == 1)
    }

    @Test("damaged entries found when opening are deleted")
    func damagedOnOpen() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let cache = try open()
            cache.store(payload(1), for: "good")
            cache.store(payload(2), for: "bad")
        }
        let badPath = directory + "/" + DiskFileName.of("bad")
        try Data(contentsOf: URL(fileURLWithPath: badPath)).dropLast(5).write(to: URL(fileURLWithPath: badPath))
        let reopened = try reopen()
        #expect(reopened.count == 1)
        #expect(reopened.statistics.corruptions == 1)
        #expect(reopened.data(for: "good") == payload(1))
    }

    @Test("short writes still produce whole entries")
    func shortWrites() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = FaultInjectingFileSystem()
        files.set { $0.maxBytesPerWrite = 7 }
        let cache = try open(files: files, sync: .file)
        #expect(cache.store(payload(1, 5_000), for: "k"))
        #expect(cache.data(for: "k") == payload(1, 5_000))
    }

    @Test("disk full, I/O errors, failed renames, permission denied: misses and failed writes, old entries intact",
          arguments: [(ENOSPC, "write"), (EIO, "write"), (EXDEV, "rename"), (EACCES, "create")])
    func faults(_ fault: (code: Int32, where: String)) throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = FaultInjectingFileSystem()
        let cache = try open(files: files)
        #expect(cache.store(payload(1), for: "old"))
        files.set {
            switch fault.where {
            case "write": $0.writeError = fault.code
            case "rename": $0.renameError = fault.code
            default: $0.createError = fault.code
            }
        }
        #expect(!cache.store(payload(2), for: "old"))
        #expect(!cache.store(payload(3), for: "new"))
        files.set { $0 = .init() }
        #expect(cache.data(for: "old") == payload(1))
        #expect(cache.data(for: "new") == nil)
        #expect(cache.statistics.writeFailures == 2)
        #expect(self.files().count == 1)  // no temporary file left behind
    }

    @Test("an I/O error on read is a miss")
    func readError() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = FaultInjectingFileSystem()
        let cache = try open(files: files)
        cache.store(payload(1), for: "k")
        files.set { $0.readError = EIO }
        #expect(cache.data(for: "k") == nil)
        #expect(cache.statistics.readFailures == 1)
    }

    @Test("the directory removed underneath: misses, then writes recreate it")
    func directoryRemoved() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = try open()
        cache.store(payload(1), for: "k")
        try FileManager.default.removeItem(atPath: directory)
        #expect(cache.data(for: "k") == nil)
        #expect(cache.store(payload(2), for: "k2"))
        #expect(cache.data(for: "k2") == payload(2))
    }

    @Test("XXH64 matches the reference implementation")
    func xxh64Vectors() {
        func hash(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBytes { XXH64.hash($0) } }
        #expect(hash([]) == 0xEF46_DB37_51D8_E999)
        #expect(hash(Array("abc".utf8)) == 0x44BC_2CF5_AD77_0999)
        #expect(hash(Array(repeating: UInt8(ascii: "a"), count: 31)) == 0xFE47_067C_DA80_2916)
        #expect(hash((0..<100).map(UInt8.init)) == 0x6AC1_E580_3216_6597)
        // One value's short path is the hash of its 8 little-endian bytes (libCacheSim's id hash).
        var random = SplitMix64(seed: 7)
        for _ in 0..<1_000 {
            let value = random.next(), seed = random.next() % 3 == 0 ? 0 : random.next()
            #expect(XXH64.hash(value, seed: seed) == withUnsafeBytes(of: value.littleEndian) { XXH64.hash($0, seed: seed) })
        }
    }
}
