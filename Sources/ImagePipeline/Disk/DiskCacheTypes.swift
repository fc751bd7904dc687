import Foundation

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
    /// The directory holds files a disk cache did not write (`example` is one): it is not opened,
    /// so nothing in it is deleted.
    case notACache(directory: String, example: String)

    public var description: String {
        switch self {
        case .locked(let directory): "disk cache \(directory) is in use by another process"
        case .unusable(let error): "disk cache unusable: \(error)"
        case .notACache(let directory, let example):
            "\(directory) holds files this disk cache did not write (\(example), …); give a new or empty folder, or one a disk cache made"
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
