import Foundation
import Testing

@Suite("Runs at once share the origin store")
struct SharedStoreTests {
    /// Two `imagecache-bench` processes start on one empty store at the same moment and
    /// make the same images: both must finish clean, and the store must end with each
    /// image once and nothing half-written.
    @Test("two processes fill one store at once")
    func twoProcesses() async throws {
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("icb-two-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        let arguments = ["stress", "--scenario", "hot-keys", "--requests", "400", "--images", "40", "--concurrency", "8", "--store", store]
        async let first = BenchProcess.run(arguments)
        async let second = BenchProcess.run(arguments)
        let outputs = try await [first, second]
        for output in outputs { #expect(output.status == 0, "\(output.stdout)\(output.stderr)") }

        let folders = try FileManager.default.contentsOfDirectory(atPath: store)
        try #require(folders.count == 1 && folders[0].hasPrefix("synthesis-"), "\(folders)")
        let files = try FileManager.default.contentsOfDirectory(atPath: store + "/" + folders[0]).filter { !$0.hasPrefix(".") }
        #expect(files.count == 40, "\(files.sorted())")
        #expect(!files.contains { $0.hasSuffix(".tmp") })
    }
}
