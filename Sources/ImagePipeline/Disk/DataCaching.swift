import Foundation

/// The disk tier: encoded bytes by key (Nuke's `DataCaching`). `DiskCache` is the built-in
/// one; a tier of your own plugs in through `ImagePipeline.Configuration.dataCache`.
/// The pipeline calls it on its disk queue, never on the cooperative pool.
public protocol DataCaching: Sendable {
    /// The bytes stored under `key`; `whenRead` runs as the tier is consulted (hit or not),
    /// ordered with its other decisions (a replay records that order).
    func data(for key: String, whenRead: @Sendable () -> Void) -> Data?
    /// Stores `data` under `key`, replacing what was there; `whenStored` hears the bytes the
    /// tier counts for it once it is in. A failed write is the tier's to log, not the caller's.
    func store(_ data: Data, for key: String, kind: DiskEntryKind, whenStored: @Sendable (_ bytes: Int) -> Void)
    func remove(_ key: String)
    /// The app's process ends: finish pending work and let go of what a relaunch reopens.
    func close()
    /// Entries held.
    var count: Int { get }
    /// Bytes held.
    var totalBytes: Int { get }
}

extension DiskCache: DataCaching {
    public func data(for key: String, whenRead: @Sendable () -> Void) -> Data? {
        data(for: key, whileLocked: whenRead)
    }

    public func store(_ data: Data, for key: String, kind: DiskEntryKind, whenStored: @Sendable (_ bytes: Int) -> Void) {
        store(data, for: key, kind: kind, whileLocked: whenStored)
    }
}
