import Foundation
import Logging

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
        /// Runs under the index's lock after each eviction down to the low-water mark
        /// (the pipeline reports it to its `DecisionRecorder`).
        public var trimmed: (@Sendable () -> Void)?

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
    let state: Locked<Index>
    private let lockDescriptor: Int32
    private let maintenance = DispatchQueue(label: "ImagePipeline.DiskCache.maintenance")
    var files: any FileSystem { configuration.fileSystem }

    /// Opens (creating if needed) the cache directory, takes its lock and rebuilds the index.
    public init(_ configuration: Configuration) throws(DiskCacheError) {
        self.configuration = configuration
        let files = configuration.fileSystem
        do {
            try files.makeDirectory(configuration.directory)
        } catch {
            throw .unusable(error)
        }
        _ = try Self.isMarked(configuration)
        do {
            lockDescriptor = try files.lockExclusively(configuration.directory + "/.lock")
        } catch {
            if error.code == EWOULDBLOCK { throw .locked(directory: configuration.directory) }
            throw .unusable(error)
        }
        do throws(DiskCacheError) { try Self.mark(configuration) } catch {
            files.close(lockDescriptor)
            throw error
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

    // A scheduled trim retains the cache, so none is pending here; and this may run on the
    // maintenance queue (a trim's block letting go last), where waiting for it would deadlock.
    deinit { closeIndexAndLock() }

    /// Saves the access order and lets go of the directory's lock, so the next cache on it
    /// (a relaunch's) opens at once and starts from that order; from then on reads miss and
    /// writes fail. Call it once the cache's work is done: the last reference can go on
    /// another thread a moment later (a finished task's), and deinit would close it only then.
    /// Pending trims run first. Closing twice does nothing.
    public func close() {
        flushMaintenance()
        closeIndexAndLock()
    }

    private func closeIndexAndLock() {
        let wasOpen = state.withLock { index in
            defer { index.isClosed = true }
            return !index.isClosed
        }
        guard wasOpen else { return }
        writeRecency()
        files.close(lockDescriptor)
    }

    // MARK: - Reading and writing

    /// The payload stored for `key`, verified; nil on a miss or any damage. `whileLocked`
    /// runs under the index's lock as the index is consulted, ordered with every other
    /// decision on the index (a replay records that order).
    public func data(for key: String, whileLocked: @Sendable () -> Void = {}) -> Data? {
        let name = DiskFileName.of(key)
        let indexed = state.withLock { index in
            let found = !index.isClosed && index.touch(name)
            if !found { index.statistics.misses += 1 }
            whileLocked()
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
    /// logging why) when the write failed; the cache stays consistent. `whileLocked` runs
    /// under the index's lock as the entry joins it, with the bytes it counts there.
    @discardableResult
    public func store(
        _ payload: Data, for key: String, kind: DiskEntryKind = .original, whileLocked: @Sendable (_ bytes: Int) -> Void = { _ in }
    ) -> Bool {
        let name = DiskFileName.of(key)
        guard let sequence = state.withLock({ $0.isClosed ? nil : $0.nextSequence() }) else {
            configuration.logger.debug("disk cache closed: \(name) not stored")
            return false
        }
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
            whileLocked(file.count)
            return index.claimTrim()
        }
        if trimNeeded { maintenance.async { self.trimIfNeeded() } }
        return true
    }

    /// Deletes the entry for `key`, if any.
    public func remove(_ key: String) {
        let name = DiskFileName.of(key)
        state.withLock { index in
            guard !index.isClosed, index.remove(name) else { return }
            try? files.remove(path(name))
        }
    }

    /// Deletes every entry.
    public func removeAll() {
        state.withLock { index in
            guard !index.isClosed else { return }
            for name in index.removeAll() { try? files.remove(path(name)) }
        }
    }

    /// Bytes an entry file adds to its payload (the key and the trailer): what
    /// the byte limit counts besides the payload.
    package static func entryOverhead(forKey key: String) -> Int { key.utf8.count + DiskEntryFormat.trailerSize }

    public var totalBytes: Int { state.withLock { $0.model.totalBytes } }
    public var count: Int { state.withLock { $0.model.count } }
    public var statistics: DiskCacheStatistics { state.withLock { $0.statistics } }

    /// Runs any pending eviction now and waits for it (tests and reports).
    public func flushMaintenance() {
        maintenance.sync {}
        trimIfNeeded()
    }

    // MARK: - Internals

    func path(_ name: String) -> String { configuration.directory + "/" + name }

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
            configuration.trimmed?()
        }
    }
}
