/// The decisions one image request takes across the tiers, made in one place
/// for the live `ImagePipeline` and for the simulator, so that a simulated
/// figure is what the pipeline does: which disk entries a memory miss looks
/// for and in what order, and what a produced image leaves in which tier.
///
/// It is a pure value: what happened (where the image came from, whether its
/// URL was invalidated meanwhile, whether anybody still waits) goes in, the
/// decision comes out; the caller does the I/O or moves the model.
public struct TierPlan: Sendable, Hashable {
    /// What the disk tier keeps, or nil when there is none.
    public let diskPolicy: DiskCachePolicy?
    /// Disk entries a memory miss looks up, in this order.
    public let diskLookups: [DiskEntryKind]

    public init(diskPolicy: DiskCachePolicy?) {
        self.diskPolicy = diskPolicy
        switch diskPolicy {
        case nil: diskLookups = []
        // A stored thumbnail needs no shrinking, so it is tried first.
        case .both: diskLookups = [.thumbnail, .original]
        case .thumbnails: diskLookups = [.thumbnail]
        case .originals: diskLookups = [.original]
        }
    }

    /// The first disk entry a memory miss finds, trying `diskLookups` in order: `read` looks one
    /// up by kind (the live tier reads the file, the simulator asks its index). A plain loop, so
    /// each entry is read once (a lazy `compactMap`'s `first` reads the hit twice).
    @inlinable
    public func firstDiskHit<Found>(_ read: (DiskEntryKind) throws -> Found?) rethrows -> (kind: DiskEntryKind, found: Found)? {
        for kind in diskLookups {
            if let found = try read(kind) { return (kind, found) }
        }
        return nil
    }

    /// Where a memory miss was answered from.
    public enum Source: UInt8, Sendable, Hashable {
        case diskThumbnail, diskOriginal, origin

        @inlinable
        public init(disk kind: DiskEntryKind) {
            self = kind == .thumbnail ? .diskThumbnail : .diskOriginal
        }
    }

    /// The entries a produced image leaves behind.
    public struct Stores: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// The decoded thumbnail in the memory tier.
        public static let memory = Stores(rawValue: 1)
        /// The downloaded bytes on disk.
        public static let diskOriginal = Stores(rawValue: 2)
        /// The thumbnail re-encoded on disk.
        public static let diskThumbnail = Stores(rawValue: 4)
    }

    /// What happened to a request between its memory miss and its answer.
    public enum Fate: UInt8, Sendable, Hashable {
        /// Answered and still current.
        case answered
        /// Its URL was invalidated while the image was being made: the answer
        /// goes out but is not cached (it may show the old picture).
        case invalidatedMeanwhile
        /// Nobody waits any more (the cell was reused): the work stops and
        /// leaves nothing behind.
        case abandoned
        /// The device is offline: the origin cannot be reached.
        case offline
    }

    /// What an image produced from `source` leaves in the tiers.
    @inlinable
    public func stores(after source: Source, _ fate: Fate = .answered) -> Stores {
        guard fate == .answered else { return [] }
        switch source {
        case .diskThumbnail:
            return .memory
        case .diskOriginal:
            return diskPolicy == .both ? [.memory, .diskThumbnail] : .memory
        case .origin:
            var stores: Stores = .memory
            if let diskPolicy, diskPolicy != .thumbnails { stores.insert(.diskOriginal) }
            if let diskPolicy, diskPolicy != .originals { stores.insert(.diskThumbnail) }
            return stores
        }
    }
}
