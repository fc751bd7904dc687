import Foundation
import Testing
@testable import Bench
import Workloads
import CacheSimulation
import OriginServer

@Suite("fidelity: the datasets' image populations against the real responses'")
struct FidelityTests {
    static let realData = CraftedTrace.datasets.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/realdata").path

    func figure(_ population: ImagePopulation, _ statistic: String) -> Double? {
        population.figures.first { $0.statistic == statistic }?.value
    }

    @Test("figures of a hand-made population")
    func handMade() throws {
        let population = ImagePopulation(urls: [
            "https://a.example/x/840_560.jpeg",       // shares its file name with the next
            "https://b.example/y/840_560.jpeg",
            "https://a.example/img?id=1",             // identity in the query: same address, another query
            "https://a.example/img?id=2",
            "https://a.example/a/bc.png",             // joined path "/abc.png" meets the next
            "https://c.example/ab/c.png",
            "https://a.example/x/840_560.jpeg",       // a repeat counts once
        ], originals: [(4000, 3000), (3000, 4000), (8000, 5000)])
        #expect(population.urls.count == 6)
        #expect(figure(population, "URLs sharing their last path component with another") == 4.0 / 6)  // 840_560.jpeg ×2, img ×2
        #expect(figure(population, "URLs sharing their joined path with another") == 4.0 / 6)  // /img ×2, /abc.png ×2
        #expect(figure(population, "URLs on the most common host") == 4.0 / 6)
        #expect(figure(population, "URLs with a query") == 2.0 / 6)
        #expect(figure(population, "URLs whose identity is in the query") == 2.0 / 6)
        #expect(figure(population, "URLs with extension jpg or jpeg") == 2.0 / 6)
        #expect(figure(population, "URLs with extension png") == 2.0 / 6)
        #expect(figure(population, "URLs with extension none") == 2.0 / 6)
        #expect(figure(population, "original width, median (px)") == 4000)
        #expect(figure(population, "original width, largest (px)") == 8000)
        #expect(figure(population, "portrait originals") == 1.0 / 3)
        #expect(FidelityTarget(service: .newsapi, statistic: "s", kind: .share, value: 0.3, sources: []).accepts(0.349))
        #expect(!FidelityTarget(service: .newsapi, statistic: "s", kind: .share, value: 0.3, sources: []).accepts(0.36))
        #expect(FidelityTarget(service: .unsplash, statistic: "w", kind: .size, value: 4000, sources: []).accepts(3200))
        #expect(!FidelityTarget(service: .unsplash, statistic: "w", kind: .size, value: 4000, sources: []).accepts(3100))
    }

    @Test("the committed targets are what the real responses measure, naming their files", .enabled(if: FileManager.default.fileExists(atPath: realData), "skipped: the real responses are read from ../shared/realdata beside the repository, absent here"))
    func targetsReproduce() throws {
        let committed = try JSONDecoder().decode(
            FidelityTargets.self, from: Data(contentsOf: CraftedTrace.datasets.appendingPathComponent("fidelity-targets.json")))
        let measured = try FidelityTargets.measure(realData: Self.realData, command: committed.command)
        #expect(measured == committed)
        #expect(Set(committed.targets.map(\.service)) == Set(Service.allCases))
        // The figures: a NewsAPI file name shared by 8% of URLs, Unsplash originals 4,000 px wide at the median.
        let news = try #require(committed.targets.first { $0.service == .newsapi && $0.statistic.contains("last path") })
        #expect(abs(news.value - 0.08) < 0.01 && news.sources.count == 4)
        #expect(committed.targets.first { $0.service == .unsplash && $0.statistic.contains("median") }?.value == 4000)
    }

    static func committedTargets() throws -> FidelityTargets {
        try JSONDecoder().decode(FidelityTargets.self, from: Data(contentsOf: CraftedTrace.datasets.appendingPathComponent("fidelity-targets.json")))
    }

    @Test("the origin's own API pages, read as the real responses are, meet every target")
    func originPagesCalibrated() throws {
        let targets = try Self.committedTargets()
        let rows = try Fidelity.compare(ResponseSample(seed: 1), targets: targets)
        #expect(rows.count == targets.targets.count)
        for row in rows {
            #expect(row.withinTolerance, "\(row.service) \(row.statistic): \(row.generated) against \(row.target)")
        }
    }

    @Test("the committed app datasets meet every target their requests can be compared on; the mix is compared on none")
    func datasetsCalibrated() throws {
        let targets = try Self.committedTargets()
        let names = ["articleproject", "headlines", "mymarket", "picterest", "vanilladin", "all"]
        let workloads = try names.map { try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent("\($0).jsonl.gz").path) }
        let rows = Fidelity.compare(workloads, targets: targets)
        for workload in workloads.dropLast() {
            let service = try #require(Fidelity.service(ofApp: workload.header.app))
            let excluded = Fidelity.notComparableOnRequests(service).reduce(into: Set<String>()) { $0.formUnion($1.statistics) }
            #expect(rows.count { $0.trace == workload.name } == targets.targets.count { $0.service == service && !excluded.contains($0.statistic) },
                    "\(workload.name)")
        }
        #expect(!rows.contains { $0.trace.hasPrefix("all") })
        for row in rows {
            #expect(row.withinTolerance, "\(row.trace) \(row.statistic): \(row.generated) against \(row.target)")
        }
        // Picterest asks for originals at their real sizes: 4,000 px wide at the median, the largest over 8,000.
        let width = try #require(rows.first { $0.trace.hasPrefix("picterest") && $0.statistic.contains("largest") })
        #expect(width.generated > 8000)
    }

    @Test("shared file names: the seed's Korean world is a parameter, off by default, that makes last-path keys collide")
    func sharedFileNames() throws {
        let targets = try Self.committedTargets()
        func lastPathShared(_ share: Double) throws -> Double {
            try #require(Fidelity.compare(ResponseSample(seed: 1, sharedFileNameShare: share), targets: targets)
                .first { $0.service == .newsapi && $0.statistic.contains("last path") }).generated
        }
        let none = try lastPathShared(0), half = try lastPathShared(0.5)
        #expect(none < 0.13)
        // Half the pictures named 840_560.jpeg: they all share it, on top of the data's own collisions.
        #expect(half > 0.45 && half > none + 0.35)
    }
}
