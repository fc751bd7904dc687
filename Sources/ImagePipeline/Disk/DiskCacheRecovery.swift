import Foundation

/// The access order across a clean close, and the index rebuilt on open
/// from the entries themselves.
extension DiskCache {
    /// Writes the names least recently accessed first, through a temporary
    /// file and a rename; a failure only loses the order.
    func writeRecency() {
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
    /// Marks a directory as a disk cache's: written into a new or empty one before any entry,
    /// so a cache never opens (and never deletes in) a folder of someone else's files, however
    /// much their names look like entries.
    static let markerFile = ".imagecache-disk"

    /// Whether the directory is a disk cache's (marked); a directory without the mark that holds
    /// anything but our lock is refused before anything is written in it.
    static func isMarked(_ configuration: Configuration) throws(DiskCacheError) -> Bool {
        let names: [String]
        do { names = try configuration.fileSystem.contentsOfDirectory(configuration.directory) } catch { throw .unusable(error) }
        if names.contains(markerFile) { return true }
        if let other = names.first(where: { $0 != ".lock" }) { throw .notACache(directory: configuration.directory, example: other) }
        return false
    }

    /// Marks a new or empty directory as this cache's (under its lock, before any entry).
    static func mark(_ configuration: Configuration) throws(DiskCacheError) {
        guard try !isMarked(configuration) else { return }
        let files = configuration.fileSystem
        do { files.close(try files.create(configuration.directory + "/" + markerFile)) } catch { throw .unusable(error) }
    }

    /// Reads every entry's trailer, deletes leftovers and damaged entries, and
    /// inserts the rest in write order.
    static func rebuild(_ index: inout Index, configuration: Configuration) throws(FileSystemError) {
        let files = configuration.fileSystem
        var found: [(name: String, sequence: UInt64, bytes: Int)] = []
        for name in try files.contentsOfDirectory(configuration.directory) where name != ".lock" && name != markerFile {
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
