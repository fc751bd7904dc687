import Crypto
import Foundation
import Testing
@testable import Bench

/// What a run records of the files it read: each regular file's size and SHA-256, hashed on a
/// thread of its own beside the run; pipes, devices and folders are never opened for it.
@Suite("Input files: hashed beside the run, pipes left to the run")
struct InputFileTests {
    let directory = BenchProcess.temporaryFile("inputs").path

    @Test("regular files, linked or not, are hashed whole; a folder, a pipe and a missing path are left out")
    func describesRegularFilesOnly() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Larger than one 1 MiB read, so the hash covers several.
        let contents = Data((0..<(3 << 19)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let trace = directory + "/trace.csv"
        try contents.write(to: URL(fileURLWithPath: trace))
        let link = directory + "/linked.csv"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: trace)
        let pipe = directory + "/pipe"
        #expect(mkfifo(pipe, 0o600) == 0)

        // No writer ever opens the pipe: opening it to hash would block this test forever.
        let pending = InputFile.Pending([trace, link, directory, pipe, directory + "/missing.csv"])
        let files = pending.files
        let expected = SHA256.hash(data: contents).map { String(format: "%02x", $0) }.joined()
        #expect(files == ["trace.csv", "linked.csv"].map { InputFile(path: $0, bytes: contents.count, sha256: expected) })  // names, not folders
        // Asked again, the same answer without waiting.
        #expect(pending.files == files)
    }
}
