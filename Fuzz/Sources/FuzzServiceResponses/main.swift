import Foundation
import Workloads

/// Any bytes as a response of each service: a page or an `ImportError`, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    for service in Service.allCases { _ = try? ServiceResponses.parse(data, service: service, file: "fuzz.json") }
    return 0
}
