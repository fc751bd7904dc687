import Foundation
import ImagePipeline
import Logging

/// A write-and-evict stream for crash testing the disk tier, and the check
/// that follows it. Payloads describe themselves (key index, generation, then
/// bytes derived from both), so the verifier knows what intact looks like
/// without trusting the cache.
public struct DiskTorture: Sendable {
    public var directory: String
    public var keyCount: Int
    public var byteLimit: Int
    public var sync: DiskCache.SyncPolicy

    public init(directory: String, keyCount: Int = 300, byteLimit: Int = 2 << 20, sync: DiskCache.SyncPolicy = .none) {
        self.directory = directory
        self.keyCount = keyCount
        self.byteLimit = byteLimit
        self.sync = sync
    }

    public static func key(_ index: Int) -> String { "https://torture.example/image/\(index).jpg" }

    /// Bytes for a key at a generation: 12 header bytes, then 500–30,500 derived bytes.
    public static func payload(key index: Int, generation: UInt64) -> Data {
        let length = 500 + Int((UInt64(index) &* 7_919 &+ generation &* 31) % 30_000)
        var data = Data(capacity: 12 + length)
        withUnsafeBytes(of: generation.littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(index).littleEndian) { data.append(contentsOf: $0) }
        var state = generation &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(index)
        for _ in 0..<length {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            data.append(UInt8(truncatingIfNeeded: state >> 56))
        }
        return data
    }

    /// Writes random keys with rising generations until `writes` are done (or
    /// the process is killed). Returns the number written.
    @discardableResult
    public func write(seed: UInt64, writes: Int = .max) throws -> Int {
        let cache = try open()
        var generator = seed | 1
        var done = 0
        while done < writes {
            generator = generator &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let index = Int(generator >> 33) % keyCount
            cache.store(Self.payload(key: index, generation: generator >> 1), for: Self.key(index))
            done += 1
        }
        return done
    }

    public struct Report: Sendable, Codable, Equatable {
        /// Keys read back.
        public var checked = 0
        /// Entries returned whole and right.
        public var intact = 0
        /// Entries returned with the wrong bytes: must stay 0.
        public var wrong = 0
        /// Damaged entries the cache found (on open or on read) and deleted.
        public var corruptionsDetected = 0
    }

    /// Opens the store and reads every key back.
    public func verify() throws -> Report {
        let cache = try open()
        var report = Report()
        for index in 0..<keyCount {
            report.checked += 1
            guard let data = cache.data(for: Self.key(index)) else { continue }
            guard data.count >= 12 else { report.wrong += 1; continue }
            let generation = data.prefix(8).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
            if data == Self.payload(key: index, generation: generation) { report.intact += 1 } else { report.wrong += 1 }
        }
        report.corruptionsDetected = cache.statistics.corruptions
        return report
    }

    private func open() throws -> DiskCache {
        var logger = Logger(label: "disk-torture")
        logger.logLevel = .error
        return try DiskCache(.init(directory: directory, byteLimit: byteLimit, sync: sync, logger: logger))
    }
}
