import Foundation
import ImagePipeline

/// Runs the built `imagecache-bench` executable, as a user would.
struct BenchProcess {
    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String
        /// Ended by a signal (a crash, or killed at its timeout), not by exiting.
        var signalled = false
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
    /// `executable`: another program to run (a shell that sets limits, say) instead of the bench;
    /// `directory`: the working folder; `timeout`: past it the process is killed (and its status says so).
    static func run(
        _ arguments: [String], executable: String? = nil, directory: URL? = nil, timeout: Duration? = nil
    ) async throws -> Output {
        try await offPool { try runBlocking(arguments, executable: executable, directory: directory, timeout: timeout) }
    }

    /// Runs blocking work on a dedicated thread and resumes with its result.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    /// The status a process killed at its timeout reports.
    static let timedOut: Int32 = -1

    private static func runBlocking(_ arguments: [String], executable program: String?, directory: URL?, timeout: Duration?) throws -> Output {
        let process = Process()
        process.executableURL = program.map { URL(fileURLWithPath: $0) } ?? executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = FileHandle.nullDevice
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // Both pipes drain at once: a child that fills one while we wait on the other would never end.
        let errors = Locked(Data())
        let drained = DispatchSemaphore(value: 0)
        Thread {
            let data = stderr.fileHandleForReading.readDataToEndOfFile()
            errors.withLock { $0 = data }
            drained.signal()
        }.start()
        var killer: DispatchWorkItem?
        if let timeout {
            let item = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Int(timeout.components.seconds)), execute: item)
            killer = item
        }
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        process.waitUntilExit()
        killer?.cancel()
        let signalled = process.terminationReason == .uncaughtSignal
        return Output(
            status: signalled && timeout != nil && process.terminationStatus == SIGKILL ? timedOut : process.terminationStatus,
            stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: errors.withLock { $0 }, as: UTF8.self),
            signalled: signalled)
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
