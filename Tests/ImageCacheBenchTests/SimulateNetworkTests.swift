@testable import Bench
import CacheSimulation
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

    @Test("a plain trace on a network: every request timed, a repeat in flight joins its object; --objects has no bytes to time")
    func plain() async throws {
        let path = BenchProcess.temporaryFile("plain").path + ".csv"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "0,1,100000\n0,2,100000\n0,1,100000\n".write(toFile: path, atomically: true, encoding: .utf8)
        let options = ["--columns", "time=1,key=2,size=3", "--memory", "10MB", "--no-bounds", "--json", "--no-files"]
        let output = try await BenchProcess.run(["simulate", path, "--network", "lte"] + options)
        #expect(output.status == 0, "\(output.stderr)")
        let row = try #require(try BenchCommandsTests.json(output).simulations.first)
        let time = try #require(row.result.timeToImage)
        #expect(time.network == "lte" && time.overall.count == 3 && time.byTier["joined"]?.count == 1 && time.byTier["origin"]?.count == 2)
        // LTE's 70 ms: two round trips to connect, one for the request.
        #expect((time.byTier["origin"]?.p50 ?? 0) > 210 && time.networkBytes == 200_000 && row.result.hits == 1)
        let backToBack = try await BenchProcess.run(["simulate", path, "--network", "lte", "--arrivals", "back-to-back", "--in-flight", "1"] + options)
        #expect(backToBack.status == 0, "\(backToBack.stderr)")
        let backToBackTime = try BenchCommandsTests.json(backToBack).simulations.first?.result.timeToImage
        #expect(backToBackTime?.byTier["memory"]?.count == 1 && backToBackTime?.arrivals == "back-to-back" && time.arrivals == nil)
        let table = try await BenchProcess.run(["simulate", path, "--network", "lte", "--arrivals", "back-to-back", "--columns", "time=1,key=2,size=3", "--no-bounds", "--no-files"])
        #expect(table.stdout.contains("lte, back-to-back"), "\(table.stdout)")

        for (extra, message) in [
            (["--network", "lte", "--objects"], "--objects counts every object as size 1, with no bytes to carry"),
            (["--arrivals", "back-to-back"], "--arrivals says when requests arrive on a clock"),
            (["--network", "lte", "--arrivals", "sideways"], "--arrivals is recorded or back-to-back, not 'sideways'"),
        ] {
            let refused = try await BenchProcess.run(["simulate", path] + extra + options)
            #expect(refused.status == 2 && refused.stderr.contains(message), "\(extra): \(refused.stderr)")
        }
    }

    /// A device profile whose every decode takes 50 ms more than this machine's, in a file of its
    /// own that the caller removes.
    static func slowDecodeProfile() throws -> String {
        let path = BenchProcess.temporaryFile("costs").path + ".json"
        var slow = DeviceCosts.thisMachine
        slow.decodeFixedNanoseconds = 50_000_000
        try DeviceProfile(costs: slow, source: "test").write(to: path)
        return path
    }

    @Test("a pipeline file on a network takes the run's device costs and arrivals, as a matrix does")
    func pipelineEnvironment() async throws {
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let costs = try Self.slowDecodeProfile()
        defer { try? FileManager.default.removeItem(atPath: costs) }
        let pipeline = CraftedTrace.datasets.deletingLastPathComponent().appendingPathComponent("presets/fixed.yaml").path
        func origin(_ extra: [String]) async throws -> TimeToImage.Percentiles? {
            let output = try await BenchProcess.run(["simulate", trace, "--pipeline", pipeline, "--network", "lte", "--no-bounds", "--json", "--no-files"] + extra)
            #expect(output.status == 0, "\(output.stderr)")
            return try BenchCommandsTests.json(output).simulations.first?.result.timeToImage?.byTier["origin"]
        }
        let defaults = try #require(try await origin([])), slower = try #require(try await origin(["--device-costs", costs]))
        // Every origin answer decodes once: 50 ms more each, at least, with two decodes at a time.
        #expect(slower.p50 >= defaults.p50 + 50)
        let backToBack = try #require(try await origin(["--arrivals", "back-to-back"]))
        #expect(backToBack != defaults)
    }

    @Test("apps times its rows and the libraries' rows with --device-costs and --arrivals, and refuses a file that is not a profile")
    func appsDeviceCosts() async throws {
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let costs = try Self.slowDecodeProfile()
        defer { try? FileManager.default.removeItem(atPath: costs) }
        func run(_ extra: [String]) async throws -> BenchResults {
            let output = try await BenchProcess.run(["apps", trace, "--network", "lte", "--live-sessions", "0", "--json", "--no-files"] + extra)
            #expect(output.status == 0, "\(output.stderr)")
            return try BenchCommandsTests.json(output)
        }
        let defaults = try await run([]), slower = try await run(["--device-costs", costs])
        let fixed = try #require(defaults.apps?.first { $0.preset == "fixed" }?.timeToImage?.byTier["origin"])
        let fixedSlower = try #require(slower.apps?.first { $0.preset == "fixed" }?.timeToImage?.byTier["origin"])
        // Every origin answer decodes once: 50 ms more each, at least.
        #expect(fixedSlower.p50 >= fixed.p50 + 50)
        let library = try #require(defaults.libraries?.first?.defaults.timeToImage?.byTier["origin"])
        let librarySlower = try #require(slower.libraries?.first?.defaults.timeToImage?.byTier["origin"])
        #expect(librarySlower.p50 >= library.p50 + 50)
        // Hits do not depend on the device's costs.
        #expect(defaults.apps?.map(\.hitRatio) == slower.apps?.map(\.hitRatio))
        // Back to back, each request as soon as the app has a place: other times, the same untimed rows.
        let backToBack = try await run(["--arrivals", "back-to-back"])
        #expect(backToBack.apps?.map(\.timeToImage) != defaults.apps?.map(\.timeToImage))
        #expect(backToBack.libraries?.map(\.defaults.timeToImage) != defaults.libraries?.map(\.defaults.timeToImage))
        #expect(backToBack.apps?.map(\.hitRatio) == defaults.apps?.map(\.hitRatio))
        for (options, message) in [
            (["--device-costs", trace], "--device-costs \(trace)"),
            (["--network", "none", "--arrivals", "back-to-back"], "--arrivals says when requests arrive on a clock"),
        ] {
            let bad = try await BenchProcess.run(["apps", trace, "--live-sessions", "0", "--no-files"] + options)
            #expect(bad.status == 2 && bad.stderr.contains(message), "\(options): \(bad.stderr)")
        }
    }

    @Test("memwarn times its reactions with --device-costs and --arrivals, as simulate does, and refuses them where they cannot apply")
    func memwarnClockTerms() async throws {
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let costs = try Self.slowDecodeProfile()
        defer { try? FileManager.default.removeItem(atPath: costs) }
        func rows(_ extra: [String]) async throws -> [WarningComparisonRow] {
            let output = try await BenchProcess.run(["memwarn", trace, "--network", "lte", "--warnings", "every:30s", "--json", "--no-files"] + extra)
            #expect(output.status == 0, "\(output.stderr)")
            return try BenchCommandsTests.json(output).memoryWarnings
        }
        let defaults = try await rows([]), slower = try await rows(["--device-costs", costs])
        #expect(!defaults.isEmpty && defaults.count == slower.count)
        for (row, slow) in zip(defaults, slower) {
            let origin = try #require(row.timeToImage?.byTier["origin"]), slowOrigin = try #require(slow.timeToImage?.byTier["origin"])
            // Every origin answer decodes once: 50 ms more each, at least; hits do not depend on the costs.
            #expect(slowOrigin.p50 >= origin.p50 + 50, "\(row.reaction)")
            #expect(slow.hitRatio == row.hitRatio, "\(row.reaction)")
        }
        let backToBack = try await rows(["--arrivals", "back-to-back"])
        #expect(backToBack.map(\.timeToImage) != defaults.map(\.timeToImage))
        for (options, message) in [
            (["--arrivals", "back-to-back"], "--arrivals says when requests arrive on a clock"),
            (["--network", "lte", "--device-costs", trace], "--device-costs \(trace)"),
        ] {
            let refused = try await BenchProcess.run(["memwarn", trace, "--no-files"] + options)
            #expect(refused.status == 2 && refused.stderr.contains(message), "\(options): \(refused.stderr)")
        }
    }

    @Test("--network recorded is simulate's: a command with one network for every trace refuses it")
    func recordedElsewhere() async throws {
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let output = try await BenchProcess.run(["memwarn", trace, "--network", "recorded", "--no-files"])
        #expect(output.status == 2 && output.stderr.contains("--network recorded fits each trace's own fetch times"), "\(output.stderr)")
    }
}
