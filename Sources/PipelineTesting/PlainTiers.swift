import Foundation
import ImagePipeline
import Synchronization

/// The memory tier apps hand-roll: a dictionary under a lock, at most `limit` images, the
/// oldest stored dropped first, everything dropped on any warning. A user's own
/// `ImageCaching` as a test meets one; it counts the pipeline's `contains` questions.
public final class DictionaryImageCache: ImageCaching {
    private struct State {
        var images: [String: DecodedImage] = [:]
        var order: [String] = []
        var containsAsked = 0
        var hits = 0
    }

    private let state = Locked(State())
    public let limit: Int

    public init(limit: Int) { self.limit = limit }

    public func image(for key: String) -> DecodedImage? {
        state.withLock { state in
            let image = state.images[key]
            if image != nil { state.hits += 1 }
            return image
        }
    }

    public func insert(_ image: DecodedImage, for key: String, whenStored: @Sendable () -> Void) {
        state.withLock { state in
            if state.images.updateValue(image, forKey: key) == nil { state.order.append(key) }
            while state.images.count > limit { state.images[state.order.removeFirst()] = nil }
            whenStored()
        }
    }

    public func contains(_ key: String) -> Bool {
        state.withLock { $0.containsAsked += 1; return $0.images[key] != nil }
    }

    public func remove(_ key: String) {
        state.withLock { state in
            guard state.images.removeValue(forKey: key) != nil else { return }
            state.order.removeAll { $0 == key }
        }
    }

    public func respond(to reaction: MemoryPressureReaction) {
        guard reaction != .ignore else { return }
        state.withLock { $0.images = [:]; $0.order = [] }
    }

    public var count: Int { state.withLock { $0.images.count } }
    public var totalCost: Int { state.withLock { $0.images.values.reduce(0) { $0 + $1.cost } } }
    public var containsAsked: Int { state.withLock { $0.containsAsked } }
    public var hits: Int { state.withLock { $0.hits } }
}

/// A disk tier held in memory: bytes by key, no limit. A user's own `DataCaching`.
public final class DictionaryDataCache: DataCaching {
    private let entries = Locked([String: Data]())

    public init() {}

    public func data(for key: String, whenRead: @Sendable () -> Void) -> Data? {
        entries.withLock { whenRead(); return $0[key] }
    }

    public func store(_ data: Data, for key: String, kind: DiskEntryKind, whenStored: @Sendable (_ bytes: Int) -> Void) {
        entries.withLock { $0[key] = data; whenStored(data.count) }
    }

    public func remove(_ key: String) { entries.withLock { _ = $0.removeValue(forKey: key) } }
    public func close() {}
    public var count: Int { entries.withLock { $0.count } }
    public var totalBytes: Int { entries.withLock { $0.values.reduce(0) { $0 + $1.count } } }
    public var keys: Set<String> { entries.withLock { Set($0.keys) } }
}

/// A decoder that makes a 1×1 grey image of any bytes, counting its calls: the pipeline's
/// bookkeeping at thousands of requests without libvips' time.
public final class PlainDecoder: ImageDecoding {
    private let calls = Atomic<Int>(0)

    public init() {}

    public func thumbnail(_ data: Data, fitting request: ThumbnailRequest) throws -> DecodedImage {
        calls.add(1, ordering: .relaxed)
        return DecodedImage(
            width: 1, height: 1, bands: 3, pixels: Data([128, 128, 128]),
            source: ImageHeader(format: .jpeg, width: 1, height: 1, byteCount: data.count))
    }

    public var decodes: Int { calls.load(ordering: .relaxed) }
}
