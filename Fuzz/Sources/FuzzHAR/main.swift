import Foundation
@testable import Workloads

/// Any bytes as a HAR file: events or an `ImportError` naming the JSON path, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    _ = try? HARImporter.events(from: Data(bytes: bytes, count: count), file: "fuzz.har")
    return 0
}
