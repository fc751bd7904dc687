import Foundation
import ImagePipeline

/// Any bytes as a URL: every key strategy and the disk file name produce a key of ASCII
/// bytes, never crash; normalising, and the resource identity, are idempotent.
enum Box {
    static let processing = ProcessingOptions(ThumbnailRequest(width: 120, height: 80, scale: 3))
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let url = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    for strategy in CacheKeyStrategy.allStrategies {
        let key = strategy.key(for: url, processing: Box.processing)
        precondition(key.utf8.allSatisfy { $0 < 0x80 }, "\(strategy) wrote a non-ASCII key for \(url.debugDescription)")
        _ = DiskFileName.of(key)
    }
    let identity = URLNormalizer.resourceIdentity.normalize(url)
    precondition(URLNormalizer.resourceIdentity.normalize(identity) == identity, "the resource identity is not idempotent for \(url.debugDescription)")
    let normalized = CacheKeyStrategy(.normalized).key(for: url)
    precondition(CacheKeyStrategy(.normalized).key(for: normalized) == normalized, "normalising is not idempotent for \(url.debugDescription)")
    return 0
}
