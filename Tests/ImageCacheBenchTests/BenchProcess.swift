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
    /// `executable`: another program to run (a shell that sets limits, say) instead of the bench.
    static func run(_ arguments: [String], executable: String? = nil) async throws -> Output {
        try await offPool { try runBlocking(arguments, executable: executable) }
    }

    /// Runs blocking work on a dedicated thread and resumes with its result.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    private static func runBlocking(_ arguments: [String], executable program: String?) throws -> Output {
        let process = Process()
        process.executableURL = program.map { URL(fileURLWithPath: $0) } ?? executable
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

    /// A running executable whose standard output is read line by line.
    final class Running: @unchecked Sendable {  // used from one test task at a time
        let process = Process()
        private let input = Pipe()
        private let output = Pipe()
        private var buffered = Data()

        init(_ arguments: [String]) throws {
            process.executableURL = BenchProcess.executable
            process.arguments = arguments
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        /// The next line of output, or nil at its end.
        func nextLine() async throws -> String? {
            try await BenchProcess.offPool { [self] in
                while true {
                    if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                        let line = buffered[..<newline]
                        buffered = Data(buffered[buffered.index(after: newline)...])
                        return String(decoding: line, as: UTF8.self)
                    }
                    let chunk = output.fileHandleForReading.availableData
                    if chunk.isEmpty { return buffered.isEmpty ? nil : String(decoding: buffered, as: UTF8.self) }
                    buffered.append(chunk)
                }
            }
        }

        /// Closes the executable's standard input.
        func closeInput() throws { try input.fileHandleForWriting.close() }

        func exitStatus() async throws -> Int32 {
            try await BenchProcess.offPool { [process] in
                process.waitUntilExit()
                return process.terminationStatus
            }
        }
    }

    static func temporaryFile(_ name: String) -> URL {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("icb-\(UUID().uuidString)-\(name)")
    }
}
