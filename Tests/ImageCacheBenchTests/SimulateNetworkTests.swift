import Bench
import Foundation
import Testing

@Suite("simulate --network")
struct SimulateNetworkTests {
    @Test("a recorded trace on a network: every request timed, the figures gated; the same run, the same times")
    func timed() async throws {
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let arguments = ["simulate", trace, "--network", "slow-4g", "--in-flight", "16", "--json", "--no-files"]
        let first = try await BenchProcess.run(arguments), second = try await BenchProcess.run(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        let results = try BenchCommandsTests.json(first)
        let row = try #require(results.simulations.first)
        let time = try #require(row.result.timeToImage)
        #expect(time.network == "slow-4g" && time.overall.count + time.neverShown == row.result.requests)
        #expect(time.byTier.values.reduce(0) { $0 + $1.count } == time.overall.count)
        // A round trip of 150 ms before any first byte, three on a new connection.
        #expect((time.byTier["origin"]?.p50 ?? 0) > 150 && (time.byTier["origin"]?.p99 ?? 0) > 450)
        #expect(time.networkBytes > 0 && time.networkBytes <= row.result.bytesDownloaded)
        #expect(results.figures.contains { $0.id.hasSuffix("/slow-4g/timeToImageP95") })
        #expect(try BenchCommandsTests.json(second).simulations.first?.result.timeToImage == time)
    }

    @Test("a bad network or a plain trace is refused, naming why", arguments: [
        (["--network", "5g"], "unknown network \"5g\""),
        (["--network", "rtt=100"], "a custom network needs down="),
        (["--network", "recorded"], "vanilladin-small.jsonl kept 0 fetch times"),
        (["--network", "recorded", "--shard", "1/2"], "--network recorded times each recorded trace on its own network"),
    ])
    func refused(_ options: [String], _ message: String) async throws {
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let output = try await BenchProcess.run(["simulate", trace, "--no-files"] + options)
        #expect(output.status == 2 && output.stderr.contains(message), "\(output.stderr)")
    }

    @Test("a plain trace has nothing to time")
    func plain() async throws {
        let path = BenchProcess.temporaryFile("plain").path + ".csv"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "1,100\n2,100\n1,100\n".write(toFile: path, atomically: true, encoding: .utf8)
        let output = try await BenchProcess.run(["simulate", path, "--network", "lte", "--no-files", "--columns", "key=1,size=2"])
        #expect(output.status == 2 && output.stderr.contains("--network times recorded requests"), "\(output.stderr)")
    }

    @Test("--network recorded is simulate's: a command with one network for every trace refuses it")
    func recordedElsewhere() async throws {
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let output = try await BenchProcess.run(["memwarn", trace, "--network", "recorded", "--no-files"])
        #expect(output.status == 2 && output.stderr.contains("--network recorded fits each trace's own fetch times"), "\(output.stderr)")
    }
}
