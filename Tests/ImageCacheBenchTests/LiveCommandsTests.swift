import Foundation
import Bench
import CacheSimulation
import Testing
import Workloads

@Suite("imagecache-bench replay and stress, live")
struct LiveCommandsTests {
    @Test("two replays at once on one origin store drive the live pipeline and agree with simulate")
    func replay() async throws {
        let store = BenchProcess.temporaryFile("store").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let arguments = ["replay", trace, "--store", store, "--json", "--no-files", "--require-agreement"]
        async let first = BenchProcess.run(arguments)
        async let second = BenchProcess.run(arguments)
        for output in try await [first, second] {
            #expect(output.status == 0, "\(output.stderr)")
            let report = try #require(try BenchCommandsTests.json(output).replays.first)
            #expect(report.requests == 258)
            #expect(report.failed == 0)
            #expect(report.answered + report.cancelled == report.requests)
            #expect(report.originRequests > 0 && report.originBytes > 0)
            #expect(report.agrees)
            #expect(report.latency["origin"]?.count ?? 0 > 0)
        }
    }

    @Test("replay --network: live goes through the origin paced to the network, still agrees in observed order, and is timed beside the clocked model")
    func replayOnNetwork() async throws {
        let store = BenchProcess.temporaryFile("store").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        let answers = BenchProcess.temporaryFile("answers").path + ".csv"
        defer { try? FileManager.default.removeItem(atPath: answers) }
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let output = try await BenchProcess.run([
            "replay", trace, "--store", store, "--json", "--no-files", "--require-agreement", "--concurrency", "4",
            "--network", "rtt=30,down=40mbit", "--save-answers", answers,
        ])
        #expect(output.status == 0, "\(output.stderr)")
        let report = try #require(try BenchCommandsTests.json(output).replays.first)
        let time = try #require(report.timeToImage)
        #expect(time.method.contains("origin paces") && time.network.hasPrefix("custom (30 ms"))
        // Every answer live and every simulated one is timed, and each side's tiers add up.
        #expect(time.compared == report.answered)
        let overall = try #require(time.rows.first)
        #expect(overall.tier == "overall" && overall.live.count == report.answered)
        #expect(time.rows.dropFirst().reduce(0) { $0 + $1.live.count } == overall.live.count)
        #expect(time.rows.dropFirst().reduce(0) { $0 + $1.simulated.count } == overall.simulated.count)
        // No answer from the origin comes before its round trip, live or simulated.
        let origin = try #require(time.rows.first { $0.tier == "origin" })
        #expect(origin.live.count > 0 && origin.live.p50 >= 30 && origin.simulated.p50 >= 30)
        #expect(time.mape.isFinite && time.spearman.isFinite && time.spearmanCeiling.isFinite && time.mapeRequests > 0)
        #expect((report.calibration?.decodes ?? 0) > 0)
        // The answers file has each request's times, live and modelled, where each side showed it.
        let rows = try String(contentsOfFile: answers, encoding: .utf8).split(separator: "\n").dropFirst()
            .map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.count == report.requests)
        #expect(rows.count { Double($0[4]) != nil && Double($0[5]) != nil } == time.compared)
        #expect(rows.allSatisfy { ($0[1] == "cancelled") == $0[4].isEmpty })
        // And when each side asked for each request: live within the replay, the model back to
        // back, never before the request before it.
        let liveAsked = rows.compactMap { Double($0[6]) }, modelAsked = rows.compactMap { Double($0[7]) }
        #expect(liveAsked.count == rows.count && liveAsked.allSatisfy { $0 >= 0 && $0 <= report.wallSeconds * 1000 } && liveAsked.max()! > 0)
        #expect(modelAsked.count == rows.count && zip(modelAsked, modelAsked.dropFirst()).allSatisfy { $0 <= $1 } && modelAsked.last! > 0)
        #expect(output.stdout.contains("\"replays\""))

        let h2 = try await BenchProcess.run(["replay", trace, "--store", store, "--no-files", "--network", "rtt=30,down=40mbit,connections=h2"])
        #expect(h2.status == 2 && h2.stderr.contains("the live replay speaks HTTP/1.1"), "\(h2.stderr)")
    }

    @Test("replay --shaping kernel: the replay runs again in a network namespace whose loopback tbf carries the downlink, and agrees as the paced one does",
          .enabled(if: getuid() == 0, "a network namespace needs root"))
    func replayKernelShaped() async throws {
        let store = BenchProcess.temporaryFile("store").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let output = try await BenchProcess.run([
            "replay", trace, "--store", store, "--json", "--no-files", "--require-agreement", "--concurrency", "4",
            "--network", "rtt=20,down=8mbit", "--shaping", "kernel",
        ])
        #expect(output.status == 0, "\(output.stderr)")
        let report = try #require(try BenchCommandsTests.json(output).replays.first)
        let time = try #require(report.timeToImage)
        #expect(time.method.contains("tbf") && time.method.contains("8546961 bit/s"), "\(time.method)")
        let origin = try #require(time.rows.first { $0.tier == "origin" })
        #expect(origin.live.count > 0 && origin.live.p50 >= 20)
        let unshaped = try await BenchProcess.run(["replay", trace, "--store", store, "--no-files", "--shaping", "kernel"])
        #expect(unshaped.status == 2 && unshaped.stderr.contains("--shaping kernel shapes a --network"), "\(unshaped.stderr)")
    }

    @Test("calibrate fits this machine's decodes and writes a profile; simulate and replay take it with --device-costs, and refuse a bad one")
    func calibrate() async throws {
        let store = BenchProcess.temporaryFile("store").path
        let profile = BenchProcess.temporaryFile("costs").path + ".json"
        defer { for path in [store, profile] { try? FileManager.default.removeItem(atPath: path) } }
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let calibrated = try await BenchProcess.run(["calibrate", trace, "--store", store, "-o", profile])
        #expect(calibrated.status == 0, "\(calibrated.stderr)")
        let read = try DeviceProfile.read(profile)
        #expect((read.decodes ?? 0) >= DeviceCalibration.fewestDecodes && read.source.contains("vanilladin-small.jsonl"))
        // Timed while the origin paces its answers to LTE unless told, and the profile says so.
        #expect(read.source.contains("the origin paced to lte"), "\(read.source)")
        #expect(read.costs != DeviceCosts.thisMachine && read.costs.decodeWidth == ProcessInfo.processInfo.activeProcessorCount)
        #expect(calibrated.stdout.contains("median error"))
        let base = ["simulate", trace, "--network", "lte", "--json", "--no-files", "--no-bounds"]
        let defaults = try await BenchProcess.run(base), mine = try await BenchProcess.run(base + ["--device-costs", profile])
        #expect(defaults.status == 0 && mine.status == 0, "\(mine.stderr)")
        let (a, b) = try (BenchCommandsTests.json(defaults).simulations.first?.result, BenchCommandsTests.json(mine).simulations.first?.result)
        #expect(a?.hits == b?.hits && a?.timeToImage != nil && a?.timeToImage?.byTier["disk"] != b?.timeToImage?.byTier["disk"])
        // The profile is an input: calibrate will not write over a trace, and a file that is no profile is refused.
        let over = try await BenchProcess.run(["calibrate", trace, "--store", store, "-o", trace])
        #expect(over.status != 0 && over.stderr.contains("is the input"), "\(over.stderr)")
        let network = try await BenchProcess.run(["calibrate", trace, "--store", store, "-o", profile + ".2", "--network", "5g"])
        #expect(network.status == 2 && network.stderr.contains("--network") && network.stderr.contains("unknown network \"5g\""), "\(network.stderr)")
        #expect(!FileManager.default.fileExists(atPath: profile + ".2"))
        let bad = try await BenchProcess.run(["replay", trace, "--store", store, "--no-files", "--device-costs", trace])
        #expect(bad.status == 2 && bad.stderr.contains("--device-costs \(trace)"), "\(bad.stderr)")
    }

    @Test("replay --pipeline: a file's limits (a count limit and an entry cap) reach live and the simulator beside it alike; what live cannot be told is refused by name")
    func replayPipelineFile() async throws {
        let store = BenchProcess.temporaryFile("store").path
        let file = BenchProcess.temporaryFile("small.yaml").path
        defer { for path in [store, file] { try? FileManager.default.removeItem(atPath: path) } }
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let presets = CraftedTrace.datasets.deletingLastPathComponent().appendingPathComponent("presets")
        var fixed = try String(contentsOf: presets.appendingPathComponent("fixed.yaml"), encoding: .utf8)
        for (from, to) in [("name: fixed", "name: small"), ("count-limit: unlimited\n  max-entry: 10%", "count-limit: 6\n  max-entry: 1%")] {
            #expect(fixed.contains(from))
            fixed = fixed.replacingOccurrences(of: from, with: to)
        }
        try fixed.write(toFile: file, atomically: true, encoding: .utf8)
        var reports: [LiveReplayReport] = []
        for pipeline in [presets.appendingPathComponent("fixed.yaml").path, file] {
            let output = try await BenchProcess.run(
                ["replay", trace, "--store", store, "--json", "--no-files", "--require-agreement", "--pipeline", pipeline])
            #expect(output.status == 0, "\(output.stderr)")
            reports.append(try #require(try BenchCommandsTests.json(output).replays.first))
        }
        #expect(reports.allSatisfy { $0.agrees })
        // Six entries of at most 1 % of 100 MiB hold less than the fixed pipeline's memory does.
        #expect(reports[1].comparison.liveMemoryHits < reports[0].comparison.liveMemoryHits, "\(reports.map(\.comparison))")

        let nuke = presets.appendingPathComponent("nuke-default.yaml").path
        let refused = try await BenchProcess.run(["replay", trace, "--store", store, "--no-files", "--pipeline", nuke])
        #expect(refused.status == 2 && refused.stderr.contains("\(nuke): decode: full cannot be replayed live"), "\(refused.stderr)")
        let beside = try await BenchProcess.run(["replay", trace, "--no-files", "--pipeline", file, "--memory", "8MB"])
        #expect(beside.status == 2 && beside.stderr.contains("--memory is not taken beside --pipeline"), "\(beside.stderr)")
    }

    @Test("one request at a time, every request is answered where the simulator answers it")
    func replayMatchesSimulatorRequestByRequest() async throws {
        let store = BenchProcess.temporaryFile("store").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let output = try await BenchProcess.run(
            ["replay", trace, "--store", store, "--json", "--no-files", "--concurrency", "1", "--memory", "2MB"])
        #expect(output.status == 0, "\(output.stderr)")
        let report = try #require(try BenchCommandsTests.json(output).replays.first)
        #expect(report.comparison.differences.isEmpty, "\(report.comparison.differences)")
        #expect(report.comparison.liveMemoryHits == report.comparison.simulatedMemoryHits)
        #expect(report.comparison.liveDiskHits == report.comparison.simulatedDiskHits)
        #expect(report.comparison.liveCancelled == report.comparison.simulatedCancelled)
        #expect(report.comparison.liveJoins == 0 && report.comparison.simulatedJoins == 0)
        #expect(report.comparison.simulatedMemoryHits > 0 && report.comparison.simulatedDiskHits > 0)
    }

    @Test("with 16 in flight, simulate in the order replay saved answers as live did: the same hits, request by request")
    func observedOrderThroughTheCommands() async throws {
        let store = BenchProcess.temporaryFile("store").path
        let order = BenchProcess.temporaryFile("order").path + ".icbo"
        let answers = BenchProcess.temporaryFile("answers").path + ".csv"
        defer { for path in [store, order, answers] { try? FileManager.default.removeItem(atPath: path) } }
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let sizes = ["--memory", "1MB", "--disk", "100KB"]  // small enough that the disk tier trims
        let replayed = try await BenchProcess.run(
            ["replay", trace, "--store", store, "--json", "--no-files", "--concurrency", "16", "--save-order", order,
             "--save-answers", answers, "--require-agreement"] + sizes)
        #expect(replayed.status == 0, "\(replayed.stderr)")
        let report = try #require(try BenchCommandsTests.json(replayed).replays.first)
        #expect(report.exact.differingRequests == 0 && report.exact.observedSteps > report.requests)
        #expect(report.comparison.liveJoins > 0)
        // The answers file: a row per request, live and observed order alike on every one, the
        // model's differences those the report counts; without a network, no times.
        let lines = try String(contentsOfFile: answers, encoding: .utf8).split(separator: "\n")
        #expect(lines.first.map(String.init) == ReplayAnswersFile.header && lines.count == report.requests + 1)
        let rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.allSatisfy { $0.count == 8 && $0[1] == $0[2] && $0[4...].allSatisfy(\.isEmpty) })
        #expect(rows.count { $0[1] != $0[3] } == report.comparison.differences.values.reduce(0, +))
        #expect(rows.count { $0[1] == "memory" } == report.memoryHits && rows.count { $0[1] == "joined" } == report.joinedWaiters)
        let simulated = try await BenchProcess.run(
            ["simulate", trace, "--observed-order", order, "--json", "--no-files", "--no-bounds"] + sizes)
        #expect(simulated.status == 0, "\(simulated.stderr)")
        let row = try #require(try BenchCommandsTests.json(simulated).simulations.first)
        #expect(row.inObservedOrder == true)
        #expect(Int(row.result.hits) == report.memoryHits + report.joinedWaiters)
        #expect(row.result.diskHits == report.diskHits)
        // Another trace's length is refused, naming the count the order was observed on.
        let cut = try await BenchProcess.run(["simulate", trace, "--requests", "100", "--observed-order", order, "--no-files"])
        #expect(cut.status == 2 && cut.stderr.contains("observed on 258 requests"), "\(cut.stderr)")
    }

    @Test("stress scenarios hold their invariants")
    func stress() async throws {
        let store = BenchProcess.temporaryFile("store").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        let output = try await BenchProcess.run(
            ["stress", "--scenario", "hot-keys,warnings,origin-faults,full-disk", "--requests", "300", "--images", "6", "--store", store, "--json"])
        #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
        let reports = try JSONDecoder().decode([StressReport].self, from: Data(output.stdout.utf8))
        #expect(reports.map(\.scenario) == ["hot-keys", "warnings", "origin-faults", "full-disk"])
        for report in reports {
            #expect(report.passed, "\(report.scenario): \(report.violations)")
            #expect(report.unanswered == 0 && report.wrongImages == 0)
        }
    }
}

@Suite("imagecache-bench on a phone: --device")
struct DeviceCommandsTests {
    @Test("--device takes a class, a class with changes, a phone of one's own, or none; nonsense is refused saying why")
    func parsing() throws {
        #expect(try DeviceParsing.parse("none") == nil)
        let named = try #require(try DeviceParsing.parse("iphone-3gb"))
        #expect(named == DeviceModel.appsDefault && named.limitBytes == 1_392 << 20)
        let changed = try #require(try DeviceParsing.parse("iphone-3gb,baseline=120MiB"))
        #expect(changed.baselineBytes == 120 << 20 && changed.limitBytes == named.limitBytes && changed.warningBytes == named.warningBytes)
        #expect(changed.name == "iphone-3gb-custom")
        let own = try #require(try DeviceParsing.parse("limit=100MB,baseline=10MB,warning=50%,critical=90MB"))
        #expect(own.limitBytes == 100_000_000 && own.warningBytes == 50_000_000 && own.criticalBytes == 90_000_000)
        for (text, reason) in [
            ("iphone-9gb", "no device class"), ("baseline=10MB", "needs limit="), ("limit=50%", "a size, not a share"),
            ("limit=100MB,baseline=90MB", "must rise"), ("iphone-3gb,color=red", "unknown setting"), ("limit=100", "no unit"),
        ] {
            #expect(throws: DeviceParsing.ParseError.self) { try DeviceParsing.parse(text) }
            do { _ = try DeviceParsing.parse(text) } catch { #expect(error.description.contains(reason), "\(error)") }
        }
    }

    @Test("on a small phone, replay ends the live pipeline at the requests where the simulator ends the app")
    func replayEndsWhereTheSimulatorDoes() async throws {
        let store = BenchProcess.temporaryFile("store").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let output = try await BenchProcess.run([
            "replay", trace, "--store", store, "--json", "--no-files", "--concurrency", "1", "--reaction", "ignore",
            "--device", "limit=35MB,baseline=30MB,warning=32MB,critical=34MB", "--require-agreement",
        ])
        #expect(output.status == 0, "\(output.stderr)")
        let report = try #require(try BenchCommandsTests.json(output).replays.first)
        let device = try #require(report.device)
        #expect(device.liveProcessEnds > 0 && device.liveProcessEnds == device.simulated.processEnds)
        #expect(device.simulated.lostRequests == device.liveProcessEnds)
        #expect(report.comparison.differences.isEmpty, "\(report.comparison.differences)")
        #expect(report.exact.differingRequests == 0)
        // More in flight would make live count images being decoded the trace does not know of.
        let refused = try await BenchProcess.run(["replay", trace, "--device", "iphone-1gb", "--no-files"])
        #expect(refused.status == 2 && refused.stderr.contains("--concurrency 1"), "\(refused.stderr)")
    }

    @Test("recommend never proposes a memory size at which the phone ends the app")
    func recommendStaysUnderTheLimit() async throws {
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let roomy = try await BenchProcess.run(["recommend", trace, "--memory-budget", "64MB", "--json", "--no-files"])
        let small = try await BenchProcess.run([
            "recommend", trace, "--memory-budget", "64MB", "--json", "--no-files", "--device", "limit=33MB,baseline=30MB,warning=31MB,critical=32MB",
        ])
        #expect(roomy.status == 0 && small.status == 0, "\(roomy.stderr) \(small.stderr)")
        let free = try #require(try BenchCommandsTests.json(roomy).recommendation)
        let bounded = try #require(try BenchCommandsTests.json(small).recommendation)
        let ended = try #require(bounded.endedSizes)
        #expect(!ended.isEmpty && ended.allSatisfy { $0 > bounded.memoryBytes })
        #expect(!bounded.memoryCurve.contains { ended.contains($0.bytes) })
        #expect(bounded.memoryBytes < free.memoryBytes)
        #expect(bounded.reasons.first { $0.setting == "memory" }?.because.contains("custom ends the app") == true)
    }
}
