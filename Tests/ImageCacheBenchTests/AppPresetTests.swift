import Foundation
import Testing
@testable import Bench
import CacheSimulation

@Suite("The apps as shipped against the fixed pipeline, on every committed app dataset")
struct AppPresetTests {
    static let rows: [AppComparisonRow] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: CraftedTrace.datasets.path)) ?? []
        let workloads = names.filter { $0.hasSuffix(".jsonl.gz") }.sorted().compactMap {
            try? RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent($0).path)
        }
        return (try? AppComparison.run(workloads)) ?? []
    }()

    static func row(_ trace: String, _ preset: String, fixing defect: String? = nil) -> AppComparisonRow? {
        rows.first { $0.trace.hasPrefix(trace) && $0.preset == preset && $0.fixedDefect == defect }
    }

    @Test("each app dataset gets its as-shipped runs, one per defect fixed, and the fixed pipeline; the mix gets none")
    func everyAppCovered() throws {
        for (trace, names) in [
            ("articleproject", ["articleproject-as-shipped", "articleproject-their-fix"]), ("headlines", ["headlines-as-shipped"]),
            ("mymarket", ["mymarket-as-shipped"]), ("picterest", ["picterest-as-shipped"]), ("vanilladin", ["vanilladin-as-shipped"]),
        ] {
            let presets = try names.map { try PresetLibrary.named($0) }
            let runs = Self.rows.filter { $0.trace.hasPrefix(trace) }
            #expect(runs.count == presets.reduce(1) { $0 + 1 + $1.defects.count }, "\(trace)")
            let fixed = try #require(Self.row(trace, "fixed"))
            #expect(fixed.wrongImages == 0 && fixed.unansweredRequests == 0 && fixed.staleImages == 0, "\(trace)")
            #expect(fixed.requests > 1_000)
        }
        #expect(!Self.rows.contains { $0.trace.hasPrefix("all") })
    }

    @Test("ArticleProject: the lastPathComponent disk key shows other articles' pictures; their fix shows fewer; a full key none")
    func articleProjectDiskKey() throws {
        let shipped = try #require(Self.row("articleproject", "articleproject-as-shipped"))
        let theirs = try #require(Self.row("articleproject", "articleproject-their-fix"))
        let keyed = try #require(Self.row("articleproject", "articleproject-as-shipped", fixing: "disk-key"))
        #expect(shipped.wrongImages > 1_000)
        #expect(theirs.wrongImages > 100 && theirs.wrongImages < shipped.wrongImages / 2)
        #expect(keyed.wrongImages == 0)
        // The wrong pictures were counted as disk hits: the correct key downloads more.
        #expect(keyed.originBytes > shipped.originBytes)
        // JPEG at quality 0.4 on disk is smaller than the downloads.
        let raw = try #require(Self.row("articleproject", "articleproject-as-shipped", fixing: "jpeg-0.4-on-disk"))
        #expect(raw.peakDiskBytes > shipped.peakDiskBytes)
    }

    @Test("My Market: its coalescer leaves requests unanswered; fixing it alone answers every one")
    func myMarketCoalescer() throws {
        let shipped = try #require(Self.row("mymarket", "mymarket-as-shipped"))
        let fixed = try #require(Self.row("mymarket", "mymarket-as-shipped", fixing: "coalescer"))
        #expect(shipped.unansweredRequests > 100)
        #expect(fixed.unansweredRequests == 0)
        #expect(fixed.hitRatio > shipped.hitRatio)
        #expect(!Self.rows.contains { !$0.preset.hasPrefix("mymarket") && $0.unansweredRequests > 0 })
    }

    @Test("whole decoded images without a limit: memory peaks far above the fixed pipeline's 100 MiB of thumbnails")
    func unboundedMemory() throws {
        for trace in ["articleproject", "picterest", "mymarket"] {
            let shipped = try #require(Self.row(trace, "\(trace)-as-shipped"))
            let fixed = try #require(Self.row(trace, "fixed"))
            #expect(shipped.peakMemoryBytes > fixed.peakMemoryBytes, "\(trace)")
            #expect(fixed.peakMemoryBytes <= 100 << 20)
        }
        // Picterest's originals decode to tens of megabytes each: on the phone, a gigabyte held before it is warned.
        #expect(try #require(Self.row("picterest", "picterest-as-shipped")).peakMemoryBytes > 1_000_000_000)
    }

    @Test("on a phone, Picterest's unbounded cache of whole originals is warned, then ended; the fixed pipeline is not")
    func picterestOnAPhone() throws {
        let workload = try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent("picterest.jsonl.gz").path)
        func run(_ preset: AppPreset, on device: DeviceModel?) -> SimulationResult {
            var configuration = preset.configuration
            configuration.device = device
            return CacheSimulator.run(preset.trace(of: workload), configuration)
        }
        let small = try #require(DeviceModel.named("iphone-1gb"))
        // A phone with memory to spare: gigabytes held, and more hits than the fixed pipeline's bounded memory keeps.
        let picterest = try PresetLibrary.named("picterest-as-shipped")
        let spare = run(picterest, on: nil)
        #expect(spare.peakMemoryCost > 5_000_000_000 && spare.device == nil)
        // The apps' phone warns it every few screens and its NSCache empties itself each time.
        let warned = run(picterest, on: .appsDefault)
        #expect(warned.warnings.count > 500 && warned.peakMemoryCost < DeviceModel.appsDefault.limitBytes)
        #expect(warned.combinedHitRatio < spare.combinedHitRatio / 2)
        // A 1 GB phone ends it in every launch, with nearly no hits; the fixed pipeline runs untouched on both.
        let ended = try #require(run(picterest, on: small).device)
        #expect(ended.processEnds > 100 && ended.interruptedSessions == ended.sessions && ended.sessions > 1)
        for device in [DeviceModel.appsDefault, small] {
            let fixed = run(try PresetLibrary.fixed(), on: device)
            #expect(fixed.device?.processEnds == 0 && fixed.warnings.count == 0, "\(device.name)")
            #expect(fixed.combinedHitRatio > warned.combinedHitRatio + 0.2, "\(device.name)")
        }
    }

    @Test("Headlines: no memory cache and PNG files; Vanilladin: no disk, so relaunches download again")
    func headlinesAndVanilladin() throws {
        let headlines = try #require(Self.row("headlines", "headlines-as-shipped"))
        #expect(headlines.memoryHitRatio == 0 && headlines.diskHitRatio > 0.5)
        let jpeg = try #require(Self.row("headlines", "headlines-as-shipped", fixing: "png-on-disk"))
        #expect(jpeg.peakDiskBytes * 4 < headlines.peakDiskBytes)
        let vanilladin = try #require(Self.row("vanilladin", "vanilladin-as-shipped"))
        let withDisk = try #require(Self.row("vanilladin", "vanilladin-as-shipped", fixing: "no-disk"))
        #expect(vanilladin.diskHitRatio == 0)
        #expect(withDisk.duplicateDownloads * 5 < vanilladin.duplicateDownloads)
    }

    @Test("apps --pipeline: a pipeline file runs on each app's trace beside the app's own; the fixed pipeline renamed gives the fixed figures")
    func givenPipeline() async throws {
        let workload = try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path)
        var mine = try PresetLibrary.fixed()
        mine.name = "mine"
        let rows = try AppComparison.run([workload], network: .suiteDefault, pipelines: [mine])
        let fixed = try #require(rows.first { $0.preset == "fixed" })
        let given = try #require(rows.last)
        #expect(given.preset == "mine" && given.givenPipeline == true && fixed.givenPipeline == nil)
        #expect(given.hitRatio == fixed.hitRatio && given.originBytes == fixed.originBytes && given.timeToImage == fixed.timeToImage)
        #expect(rows.groupedByShippedPreset.map(\.shipped.preset) == ["vanilladin-as-shipped"])
        // A file named as a committed preset would mix its figures with the preset's: refused.
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let file = CraftedTrace.datasets.deletingLastPathComponent().appendingPathComponent("presets/fixed.yaml").path
        let output = try await BenchProcess.run(["apps", trace, "--pipeline", file, "--live-sessions", "0", "--no-files"])
        #expect(output.status == 2 && output.stderr.contains("names itself fixed"), "\(output.stderr)")
    }

    @Test("apps --json: every run, and each app's port live on the loopback origin answering as its preset's simulation does")
    func command() async throws {
        let store = BenchProcess.temporaryFile("store").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        let traces = ["mymarket", "articleproject"].map { CraftedTrace.datasets.appendingPathComponent("\($0).jsonl.gz").path }
        let output = try await BenchProcess.run(["apps"] + traces + ["--live-sessions", "1", "--store", store, "--json", "--no-files"])
        #expect(output.status == 0, "\(output.stderr)")
        let results = try BenchCommandsTests.json(output)
        let myMarket = try PresetLibrary.named("mymarket-as-shipped"), articleProject = try PresetLibrary.named("articleproject-as-shipped")
        #expect(results.apps?.count == (1 + myMarket.defects.count) + 2 * (1 + articleProject.defects.count) + 2)
        let live = try #require(results.appsLive)
        // My Market's coalescer, and ArticleProject's disk named by the last path component and their fix,
        // decoded by libvips and re-encoded as JPEG 0.4 on a real disk.
        #expect(live.map(\.preset) == ["mymarket-as-shipped", "articleproject-as-shipped", "articleproject-their-fix"])
        for check in live {
            #expect(check.sessions == 1 && check.requests > 100, "\(check.preset)")
            #expect(check.differingRequests == 0 && check.live == check.simulated, "\(check.preset)")
        }
        #expect(live[1].live["disk", default: 0] > 0)
        #expect(results.figures.contains { $0.id.hasPrefix("apps/mymarket.jsonl.gz/mymarket-as-shipped/") })
    }

    @Test("the runs' gated figures have one name each and cover every run")
    func figures() {
        var results = BenchResults(command: "test")
        results.apps = Self.rows
        results.deriveFigures()
        #expect(Set(results.figures.map(\.id)).count == results.figures.count)
        // Eight per run, and four of the phone's (process ends, interrupted sessions, lost requests, peak footprint).
        #expect(results.figures.count == Self.rows.count * 12)
        #expect(Self.rows.allSatisfy { $0.device == DeviceModel.appsDefault.name })
        #expect(results.figures.contains { $0.id == "apps/mymarket.jsonl.gz/mymarket-as-shipped/fix-coalescer/unansweredRequests" && $0.value == 0 })
    }
}
