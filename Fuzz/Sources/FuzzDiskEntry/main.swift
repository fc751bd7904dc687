import Foundation
@testable import ImagePipeline

/// Any bytes as a disk entry file: the trailer parser and payload check accept it
/// or throw, never crash or return a payload for another key.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let file = Data(bytes: bytes, count: count)
    guard let (_, key) = try? DiskEntryFormat.trailer(ofTail: Data(file.suffix(4096)), fileSize: file.count) else { return 0 }
    var copy = file
    _ = try? DiskEntryFormat.payload(of: &copy, expectedKey: key)
    var other = file
    if (try? DiskEntryFormat.payload(of: &other, expectedKey: key + "x")) != nil {
        preconditionFailure("an entry for \(key) was accepted for another key")
    }
    return 0
}
