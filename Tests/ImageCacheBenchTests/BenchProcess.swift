import Foundation

/// Runs the built `imagecache-bench` executable, as a user would.
struct BenchProcess {
    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// The executable sits beside the test bundle in the build folder.
    static var executable: URL {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0])
            .deletingLastPathComponent().appendingPathComponent("imagecache-bench")
        if FileManager.default.isExecutableFile(atPath: besideTests.path) { return besideTests }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/imagecache-bench")
    }

    /// Runs the executable to completion. The waiting happens on a thread of
    /// its own: on a 2-core machine the cooperative pool has two threads, and
    /// blocking one for seconds stalls every other test.
    static func run(_ arguments: [String]) async throws -> Output {
        try await offPool { try runBlocking(arguments) }
    }

    /// Runs blocking work on a dedicated thread and resumes with its result.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    private static func runBlocking(_ arguments: [String]) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus,
            stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self))
    }

    static func temporaryFile(_ name: String) -> URL {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("icb-\(UUID().uuidString)-\(name)")
    }
}
