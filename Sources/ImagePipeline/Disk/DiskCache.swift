import Foundation
import Logging

/// Which bytes a pipeline keeps on disk (as in Nuke): the downloaded originals,
/// re-encoded thumbnails, or both.
public enum DiskCachePolicy: String, Sendable, CaseIterable, Codable {
    case originals, thumbnails, both
}

/// Why a disk cache could not be opened.
public enum DiskCacheError: Error, Equatable, CustomStringConvertible {
    /// Another process (or another `DiskCache`) has the directory open for writing.
    case locked(directory: String)
    /// The directory cannot be created or listed.
    case unusable(FileSystemError)

    public var description: String {
        switch self {
        case .locked(let directory): "disk cache \(directory) is in use by another process"
        case .unusable(let error): "disk cache unusable: \(error)"
        }
    }
}

/// Counters a disk cache keeps.
public struct DiskCacheStatistics: Sendable, Equatable, Codable {
    public var hits = 0
    public var misses = 0
    public var writes = 0
    public var writeFailures = 0
    public var evictions = 0
    /// Entries found damaged (checksum, length, key) and deleted.
    public var corruptions = 0
    /// Reads that failed for an I/O reason (counted as misses).
    public var readFailures = 0
}

/// A crash-safe disk tier: one file per entry under a directory, named by the
/// SHA-256 of its key.
///
/// - Writes go to a temporary file, are synced per `SyncPolicy`, then renamed:
///   a crash leaves the old entry or the new one, never half of one.
/// - Every read verifies the entry's trailer and payload checksum; damage
///   deletes the entry and counts as a miss, never returns wrong bytes.
/// - The index lives in memory, rebuilt on open from the entries themselves.
///   A clean close writes the access order to `.recency`, which the next open
///   starts from (as the simulator's disk keeps it across a relaunch); entries
///   it does not name follow in write order (their sequence numbers; file
///   timestamps are not trusted).
/// - Over the byte or count limit, least recently accessed entries are evicted
///   down to the low-water mark on a background queue, off the request path.
/// - An advisory lock keeps a second process from opening the directory.
/// - Disk full, permission denied or a vanished directory turn into misses and
///   failed writes with a logged warning.
public final class DiskCache: Sendable {
    /// When writes are made durable.
    public enum SyncPolicy: String, Sendable, CaseIterable {
        /// Rely on the kernel: fastest; a power loss may lose recent entries (never corrupt one).
        case none
        /// fsync each file before the rename.
        case file
        /// fsync each file and the directory after the rename.
        case fileAndDirectory
    }

    public struct Configuration: Sendable {
        public var directory: String
        public var byteLimit: Int
        public var countLimit: Int
        public var lowWaterFraction: Double
        public var sync: SyncPolicy
        public var fileSystem: any FileSystem
        public var logger: Logger

        public init(
            directory: String, byteLimit: Int, countLimit: Int = .max, lowWaterFraction: Double = 0.7,
            sync: SyncPolicy = .file, fileSystem: any FileSystem = PosixFileSystem(),
            logger: Logger = Logger(label: "ImagePipeline.DiskCache")
        ) {
            self.directory = directory
            self.byteLimit = byteLimit
            self.countLimit = countLimit
            self.lowWaterFraction = lowWaterFraction
            self.sync = sync
            self.fileSystem = fileSystem
            self.logger = logger
        }
    }

    public let configuration: Configuration
    private let state: Locked<Index>
    private let lockDescriptor: Int32
    private let maintenance = DispatchQueue(label: "ImagePipeline.DiskCache.maintenance")
    private var files: any FileSystem { configuration.fileSystem }

    /// Opens (creating if needed) the cache directory, takes its lock and rebuilds the index.
    public init(_ configuration: Configuration) throws(DiskCacheError) {
        self.configuration = configuration
        let files = configuration.fileSystem
        do {
            try files.makeDirectory(configuration.directory)
        } catch {
            throw .unusable(error)
        }
        do {
            lockDescriptor = try files.lockExclusively(configuration.directory + "/.lock")
        } catch {
            if error.code == EWOULDBLOCK { throw .locked(directory: configuration.directory) }
            throw .unusable(error)
        }
        var index = Index(model: DiskIndexModel(
            byteLimit: configuration.byteLimit, countLimit: configuration.countLimit,
            lowWaterFraction: configuration.lowWaterFraction))
        do {
            try Self.rebuild(&index, configuration: configuration)
        } catch {
            files.close(lockDescriptor)
            throw .unusable(error)
        }
        state = Locked(index)
        scheduleTrimIfNeeded()
    }

    // A scheduled trim retains the cache, so none is pending here.
    deinit {
        writeRecency()
        files.close(lockDescriptor)
    }

    /// Writes the names least recently accessed first, through a temporary
    /// file and a rename; a failure only loses the order.
    private func writeRecency() {
        let names = state.withLock { index in index.model.slotsByRecency().compactMap { index.names[Int($0)] } }
        let path = configuration.directory + "/" + Self.recencyFile
        let text = Data(names.joined(separator: "\n").utf8)
        do {
            let descriptor = try files.create(path + ".tmp")
            defer { files.close(descriptor) }
            try withBytes(text) { bytes throws(FileSystemError) in
                var written = 0
                while written < bytes.count {
                    written += try files.write(descriptor, UnsafeRawBufferPointer(rebasing: bytes[written...]))
                }
            }
            try files.rename(path + ".tmp", to: path)
        } catch {
            configuration.logger.debug("disk cache access order not saved: \(error)")
            try? files.remove(path + ".tmp")
        }
    }

    static let recencyFile = ".recency"

    // MARK: - Reading and writing

    /// The payload stored for `key`, verified; nil on a miss or any damage.
    public func data(for key: String) -> Data? {
        let name = DiskFileName.of(key)
        let indexed = state.withLock { index in
            let found = index.touch(name)
            if !found { index.statistics.misses += 1 }
            return found
        }
        guard indexed else { return nil }
        var file: Data
        do {
            file = try files.read(path(name))
        } catch where error.code == ENOENT {
            // Evicted between the index lookup and the read, or the directory was removed.
            configuration.logger.debug("disk cache entry \(name) vanished: \(error)")
            forget(name) { _ in }
            return nil
        } catch {
            configuration.logger.warning("disk cache read failed, treating as a miss: \(error)")
            forget(name) { $0.readFailures += 1 }
            return nil
        }
        do {
            _ = try DiskEntryFormat.payload(of: &file, expectedKey: key)
        } catch {
            configuration.logger.warning("disk cache entry \(name) is damaged (\(error)); deleted")
            try? files.remove(path(name))
            forget(name) { $0.corruptions += 1 }
            return nil
        }
        state.withLock { $0.statistics.hits += 1 }
        return file
    }

    /// Stores `payload` for `key`, replacing what was there. Returns false (after
    /// logging why) when the write failed; the cache stays consistent.
    @discardableResult
    public func store(_ payload: Data, for key: String, kind: DiskEntryKind = .original) -> Bool {
        let name = DiskFileName.of(key)
        let sequence = state.withLock { $0.nextSequence() }
        let file = DiskEntryFormat.encode(payload, key: key, kind: kind, sequence: sequence)
        do {
            try write(file, as: name, sequence: sequence)
        } catch {
            configuration.logger.warning("disk cache write failed: \(error)")
            state.withLock { $0.statistics.writeFailures += 1 }
            return false
        }
        let trimNeeded = state.withLock { index in
            index.add(name, bytes: file.count)
            return index.claimTrim()
        }
        if trimNeeded { maintenance.async { self.trimIfNeeded() } }
        return true
    }

    /// Deletes the entry for `key`, if any.
    public func remove(_ key: String) {
        let name = DiskFileName.of(key)
        state.withLock { index in
            guard index.remove(name) else { return }
            try? files.remove(path(name))
        }
    }

    /// Deletes every entry.
    public func removeAll() {
        state.withLock { index in
            for name in index.removeAll() { try? files.remove(path(name)) }
        }
    }

    /// Bytes an entry file adds to its payload (the key and the trailer): what
    /// the byte limit counts besides the payload.
    public static func entryOverhead(forKey key: String) -> Int { key.utf8.count + DiskEntryFormat.trailerSize }

    public var totalBytes: Int { state.withLock { $0.model.totalBytes } }
    public var count: Int { state.withLock { $0.model.count } }
    public var statistics: DiskCacheStatistics { state.withLock { $0.statistics } }

    /// Runs any pending eviction now and waits for it (tests and reports).
    public func flushMaintenance() {
        maintenance.sync {}
        trimIfNeeded()
    }

    // MARK: - Internals

    private func path(_ name: String) -> String { configuration.directory + "/" + name }

    /// Writes to a unique temporary file, syncs it per policy, renames it into place.
    private func write(_ file: Data, as name: String, sequence: UInt64) throws(FileSystemError) {
        let destination = path(name)
        let temporary = destination + "." + String(sequence) + ".tmp"
        let descriptor: Int32
        do {
            descriptor = try files.create(temporary)
        } catch where error.code == ENOENT {
            // The directory vanished underneath us: make it again, once.
            try files.makeDirectory(configuration.directory)
            descriptor = try files.create(temporary)
        }
        do throws(FileSystemError) {
            try withBytes(file) { (bytes: UnsafeRawBufferPointer) throws(FileSystemError) in
                var offset = 0
                while offset < bytes.count {
                    let written = try files.write(descriptor, UnsafeRawBufferPointer(rebasing: bytes[offset...]))
                    guard written > 0 else { throw FileSystemError("write", temporary, code: EIO) }
                    offset += written
                }
            }
            if configuration.sync != .none { try files.synchronize(descriptor) }
            files.close(descriptor)
        } catch {
            files.close(descriptor)
            try? files.remove(temporary)
            throw error
        }
        do {
            try files.rename(temporary, to: destination)
        } catch {
            try? files.remove(temporary)
            throw error
        }
        if configuration.sync == .fileAndDirectory { try files.synchronizeDirectory(configuration.directory) }
    }

    /// Drops an entry from the index after a failed read, counting why.
    private func forget(_ name: String, _ count: (inout DiskCacheStatistics) -> Void) {
        state.withLock { index in
            _ = index.remove(name)
            index.statistics.misses += 1
            count(&index.statistics)
        }
    }

    private func scheduleTrimIfNeeded() {
        if state.withLock({ $0.claimTrim() }) { maintenance.async { self.trimIfNeeded() } }
    }

    /// Evicts down to the low-water mark. Files are deleted under the lock, so a
    /// concurrent write of the same key cannot have its new file deleted.
    private func trimIfNeeded() {
        state.withLock { index in
            index.trimScheduled = false
            guard index.model.needsTrim else { return }
            for name in index.trim() { try? files.remove(path(name)) }
        }
    }

    /// Reads every entry's trailer, deletes leftovers and damaged entries, and
    /// inserts the rest in write order.
    private static func rebuild(_ index: inout Index, configuration: Configuration) throws(FileSystemError) {
        let files = configuration.fileSystem
        var found: [(name: String, sequence: UInt64, bytes: Int)] = []
        for name in try files.contentsOfDirectory(configuration.directory) where name != ".lock" {
            let path = configuration.directory + "/" + name
            guard DiskFileName.isValid(name) else {
                if name.hasSuffix(".tmp") { try? files.remove(path) }  // a write a crash interrupted
                continue
            }
            do {
                let (tail, size) = try files.readTail(path, count: DiskEntryFormat.trailerSize + 4096)
                let (trailer, key) = try DiskEntryFormat.trailer(ofTail: tail, fileSize: size)
                guard DiskFileName.of(key) == name else { throw DiskEntryFormat.Failure.wrongKey }
                found.append((name, trailer.sequence, size))
            } catch {
                configuration.logger.warning("disk cache entry \(name) is unreadable (\(error)); deleted")
                try? files.remove(path)
                index.statistics.corruptions += 1
            }
        }
        // The last clean close's access order, read once: a crash after this open leaves write order.
        let recencyPath = configuration.directory + "/" + recencyFile
        var rank: [String: Int] = [:]
        if let saved = try? files.read(recencyPath) {
            for (position, name) in String(decoding: saved, as: UTF8.self).split(separator: "\n").enumerated() {
                rank[String(name)] = position
            }
            try? files.remove(recencyPath)
        }
        for entry in found.sorted(by: { (rank[$0.name] ?? .max, $0.sequence) < (rank[$1.name] ?? .max, $1.sequence) }) {
            index.add(entry.name, bytes: entry.bytes)
            index.sequence = max(index.sequence, entry.sequence)
        }
    }
}

extension DiskCache {
    /// File names ↔ slots of the shared index model, plus counters.
    fileprivate struct Index {
        var model: DiskIndexModel
        var slots: [String: Slot] = [:]
        var names: [String?] = []
        var freeSlots: [Slot] = []
        var sequence: UInt64 = 0
        var statistics = DiskCacheStatistics()
        var trimScheduled = false

        /// Whether a trim should be scheduled now (at most one is pending).
        mutating func claimTrim() -> Bool {
            guard model.needsTrim, !trimScheduled else { return false }
            trimScheduled = true
            return true
        }

        mutating func nextSequence() -> UInt64 {
            sequence += 1
            return sequence
        }

        /// Marks an entry used; false if it is not in the index.
        mutating func touch(_ name: String) -> Bool {
            guard let slot = slots[name] else { return false }
            model.recordAccess(slot)
            return true
        }

        mutating func add(_ name: String, bytes: Int) {
            if let old = slots[name] { model.remove(old); release(old) }
            let slot = freeSlots.popLast() ?? Slot(names.count)
            if Int(slot) == names.count { names.append(name) } else { names[Int(slot)] = name }
            slots[name] = slot
            model.insert(slot, bytes: bytes)
            statistics.writes += 1
        }

        /// Removes an entry from the index; false if it was not there.
        mutating func remove(_ name: String) -> Bool {
            guard let slot = slots[name] else { return false }
            model.remove(slot)
            release(slot)
            return true
        }

        mutating func trim() -> [String] {
            var victims: [Slot] = []
            model.trim { victims.append($0) }
            let evicted = victims.compactMap { names[Int($0)] }
            victims.forEach { release($0) }
            statistics.evictions += victims.count
            return evicted
        }

        mutating func removeAll() -> [String] {
            let all = Array(slots.keys)
            model.removeAll()
            slots = [:]
            names = []
            freeSlots = []
            return all
        }

        private mutating func release(_ slot: Slot) {
            if let name = names[Int(slot)] { slots[name] = nil }
            names[Int(slot)] = nil
            freeSlots.append(slot)
        }
    }
}
