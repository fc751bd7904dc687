import Foundation
import Bench
import ImagePipeline
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Disk tier survives SIGKILL")
struct DiskCrashTests {
    /// A child writes and evicts continuously; it is killed at a random moment;
    /// the store must open cleanly and serve only intact entries. Repeated so
    /// kills land in every phase of a write (data, rename, eviction). The moments come from
    /// a seeded generator, so a failing cycle kills at the same moments when run again.
    @Test func killLoop() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("icb-crash-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let torture = DiskTorture(directory: directory)
        var generator = SplitMix64(seed: 2026)
        var verifiedEntries = 0
        for cycle in 0..<25 {
            let child = Process()
            child.executableURL = BenchProcess.executable
            child.arguments = ["disk-torture", "write", "--directory", directory, "--seed", "\(cycle + 1)"]
            child.standardOutput = FileHandle.nullDevice
            try child.run()
            try await Task.sleep(for: .milliseconds(Int.random(in: 60...250, using: &generator)))
            kill(child.processIdentifier, SIGKILL)
            try await BenchProcess.offPool { child.waitUntilExit() }
            #expect(child.terminationReason == .uncaughtSignal)

            let report = try await BenchProcess.offPool { try torture.verify() }
            #expect(report.wrong == 0, "cycle \(cycle): \(report)")
            verifiedEntries += report.intact
        }
        #expect(verifiedEntries > 100)  // the children really wrote
    }
}
