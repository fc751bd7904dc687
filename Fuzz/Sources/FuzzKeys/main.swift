import Foundation
import ImagePipeline

/// Any bytes as a URL: every key strategy and the disk file name produce a key, never crash;
/// normalising is idempotent.
enum Box {
    static let processing = ProcessingOptions(ThumbnailRequest(width: 120, height: 80, scale: 3))
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let url = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    for strategy in CacheKeyStrategy.allStrategies {
        _ = DiskFileName.of(strategy.key(for: url, processing: Box.processing))
    }
    let normalized = CacheKeyStrategy(.normalized).key(for: url)
    precondition(CacheKeyStrategy(.normalized).key(for: normalized) == normalized, "normalising is not idempotent for \(url.debugDescription)")
    return 0
}
