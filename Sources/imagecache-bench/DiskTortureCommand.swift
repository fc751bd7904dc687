import ArgumentParser
import Bench
import ImagePipeline

struct DiskTortureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disk-torture",
        abstract: "Crash-test the disk tier: write and evict until killed, or verify a store after a kill.",
        discussion: "Run `write` in a child process, kill it with SIGKILL, then run `verify`: it must report 0 wrong entries."
    )

    enum Mode: String, ExpressibleByArgument { case write, verify }

    @Argument var mode: Mode
    @Option var directory: String
    @Option(help: "Seed of the keys and payloads written: any whole number from 0 to 2^64−1.") var seed: UInt64 = 1
    @Option(parsing: .unconditional, help: "Stop after this many writes, 1 to 10^12 (default: until killed).")
    var writes: Int?
    @Option(name: [.customLong("disk-sync"), .customLong("sync")], help: "Disk writes, as replay --disk-sync.")
    var sync: DiskCache.SyncPolicy = .none

    func validate() throws {
        if let writes { try OptionCheck.count(writes, "--writes", atLeast: 1, atMost: OptionCheck.maximumRequests) }
    }

    func run() throws {
        let torture = DiskTorture(directory: directory, sync: sync)
        switch mode {
        case .write:
            print("wrote \(try torture.write(seed: seed, writes: writes ?? .max)) entries")
        case .verify:
            let report = try torture.verify()
            print("checked \(report.checked), intact \(report.intact), wrong \(report.wrong), corruptions detected \(report.corruptionsDetected)")
            if report.wrong > 0 { throw ExitCode.failure }
        }
    }
}

extension DiskCache.SyncPolicy: ExpressibleByArgument {}
