import Bench
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("The soak's descriptor counts")
struct ProcessMetricsTests {
    /// The soak holds sockets and other descriptors to different bounds, so telling them apart must be right.
    @Test func socketsAndFilesAreToldApart() throws {
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let fileDescriptor = open("/proc/self/statm", O_RDONLY)
        var pipeDescriptors: [Int32] = [0, 0]
        try #require(socketDescriptor >= 0 && fileDescriptor >= 0 && pipe(&pipeDescriptors) == 0)
        defer { ([socketDescriptor, fileDescriptor] + pipeDescriptors).forEach { close($0) } }

        #expect(ProcessMetrics.isSocket(socketDescriptor))
        #expect(!ProcessMetrics.isSocket(fileDescriptor))
        #expect(!pipeDescriptors.contains(where: ProcessMetrics.isSocket))
        // A descriptor that is not open is no socket.
        #expect(!ProcessMetrics.isSocket(Int32.max))
        let counts = ProcessMetrics.openDescriptors
        #expect(counts.sockets >= 1 && counts.others >= 3)
    }
}
