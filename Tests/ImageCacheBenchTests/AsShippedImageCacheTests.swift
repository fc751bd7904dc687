import Foundation
import Testing
import Bench
import CacheSimulation
import ImagePipeline
import PipelineTesting

@Suite("The apps' pipelines as shipped, ported live: each answers every request where its preset's simulation does")
struct AsShippedImageCacheTests {
    let bytes = Data(repeating: 7, count: 40)

    func answers(
        _ preset: AppPreset, _ workload: RecordedWorkload, inFlight: Int = 1
    ) async throws -> (answers: [CacheSimulator.Answer], order: ObservedOrder) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("icb-as-shipped-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        return try await AsShippedReplay.answers(
            preset, workload, fetcher: ScriptedFetcher(fallback: .data(bytes)), folder: folder, inFlight: inFlight
        ) { data, writesFile in (data.count, data.count, writesFile ? Data(repeating: 1, count: data.count) : nil) }
    }

    @Test(
        "the first sessions of each app's dataset, request by request",
        arguments: [
            ("articleproject", "articleproject-as-shipped"), ("articleproject", "articleproject-their-fix"), ("vanilladin", "vanilladin-as-shipped"),
            ("headlines", "headlines-as-shipped"), ("picterest", "picterest-as-shipped"),
        ])
    func matchesSimulation(_ c: (String, String)) async throws {
        let preset = try PresetLibrary.named(c.1)
        let full = try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent("\(c.0).jsonl.gz").path)
        let workload = full.prefix(sessions: 3)
        let live = try await answers(preset, workload).answers
        var configuration = preset.configuration
        configuration.inFlight = 0
        let simulated = CacheSimulator.answers(preset.trace(of: workload), configuration).answers
        #expect(live.count == workload.requests.count)
        let differing = zip(live, simulated).enumerated().filter { $0.element.0 != $0.element.1 }
        #expect(differing.isEmpty, "first differences: \(differing.prefix(5).map { "request \($0.offset): live \($0.element.0), simulated \($0.element.1)" })")
        #expect(live.contains(.origin))
        // Each app's tiers show: Headlines keeps nothing in memory, Vanilladin and Picterest have no disk.
        switch c.0 {
        case "headlines": #expect(!live.contains(.memory) && live.contains(.disk))
        case "vanilladin", "picterest": #expect(!live.contains(.disk) && live.contains(.memory))
        default: #expect(live.contains(.memory) && live.contains(.disk))
        }
    }

    @Test(
        "with the presets' 10 loads at once, each port answers every request as its preset simulated in the port's order",
        arguments: [
            ("articleproject", "articleproject-as-shipped"), ("articleproject", "articleproject-their-fix"), ("vanilladin", "vanilladin-as-shipped"),
            ("headlines", "headlines-as-shipped"), ("picterest", "picterest-as-shipped"),
        ])
    func matchesSimulationInFlight(_ c: (String, String)) async throws {
        let preset = try PresetLibrary.named(c.1)
        let full = try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent("\(c.0).jsonl.gz").path)
        let workload = full.prefix(sessions: 3)
        let live = try await answers(preset, workload, inFlight: preset.loadsInFlight)
        var configuration = preset.configuration
        configuration.inFlight = 0
        let simulated = CacheSimulator.answers(preset.trace(of: workload), configuration, observed: live.order).answers
        let differing = zip(live.answers, simulated).enumerated().filter { $0.element.0 != $0.element.1 }
        #expect(differing.isEmpty, "first differences: \(differing.prefix(5).map { "request \($0.offset): live \($0.element.0), simulated \($0.element.1)" })")
        #expect(!live.answers.contains(.unanswered) && live.answers.contains(.origin))
    }

    @Test("ArticleProject's disk named by the last path component answers a URL with another URL's file")
    func diskKeyCollision() async throws {
        let full = try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent("articleproject.jsonl.gz").path)
        let workload = full.prefix(sessions: 3)
        let articleProject = try PresetLibrary.named("articleproject-as-shipped")
        let shipped = try await answers(articleProject, workload).answers
        let diskKey = try #require(articleProject.defects.first { $0.id == "disk-key" })
        let fixed = try await answers(articleProject.fixing(diskKey, as: try PresetLibrary.fixed()), workload).answers
        // Only the colliding key finds files for URLs it never downloaded: more disk answers, each a picture of another URL.
        #expect(shipped.count { $0 == .disk } > fixed.count { $0 == .disk })
    }
}
