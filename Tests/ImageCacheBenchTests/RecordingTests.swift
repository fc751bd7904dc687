import AsyncHTTPClient
import Foundation
import OriginServer
import Bench
import Testing
import Workloads

/// The origin's API pages, with image facts from its catalog instead of
/// synthesising every picture: fast enough to check each model's shape.
struct CatalogEnvironment: AppEnvironment {
    let origin: OriginServer
    let pages: OriginEnvironment

    func get(_ path: String, clock: Int) async throws -> Data { try await pages.get(path, clock: clock) }
    func send(method: String, path: String) async throws { try await pages.send(method: method, path: path) }

    func facts(for urls: [String]) async throws -> [String: ImageFacts] {
        var facts: [String: ImageFacts] = [:]
        for url in urls {
            guard let image = origin.catalog.descriptor(for: url) else { throw RecordingError.missingImage(url) }
            facts[url] = ImageFacts(content: image.contentID, bytes: image.width * image.height / 8, width: image.width,
                                    height: image.height, format: image.format.rawValue)
        }
        return facts
    }
}

@Suite("App models and the recorder", .serialized)
struct RecordingTests {
    /// Records `app` with a catalog-backed environment and returns the trace file's bytes and its events.
    func record(_ apps: [AppName], sessions: Int = 2, seed: UInt64 = 5) async throws -> (Data, [TraceEvent]) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("icb-rec-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let origin = try await OriginServer.start(.init(seed: seed))
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let environment = CatalogEnvironment(origin: origin, pages: OriginEnvironment(origin: origin, client: client))
        do {
            _ = try await Recorder.record(apps, sessions: sessions, seed: seed, environment: environment, to: path, generator: "test")
        } catch {
            try await client.shutdown()
            await origin.stop()
            throw error
        }
        try await client.shutdown()
        await origin.stop()
        var reader = try TraceReader(path: path)
        return (try Data(contentsOf: URL(fileURLWithPath: path)), try reader.readAll())
    }

    func images(_ events: [TraceEvent]) -> [ImageRequestEvent] {
        events.compactMap { if case .image(let image) = $0.kind { image } else { nil } }
    }

    func apiURLs(_ events: [TraceEvent]) -> [String] {
        events.compactMap { if case .api(let url) = $0.kind { url } else { nil } }
    }

    /// Invariants every trace keeps: ids unique and increasing, cancels name an
    /// earlier request of the same session, time never runs backwards within a session.
    func checkInvariants(_ events: [TraceEvent]) {
        var seen: Set<Int> = [], lastID = 0, lastTime = 0
        for event in events {
            switch event.kind {
            case .session: seen = []; lastTime = 0
            case .image(let image):
                #expect(image.id > lastID)
                lastID = image.id
                seen.insert(image.id)
            case .cancel(let id): #expect(seen.contains(id), "cancel of unknown request \(id)")
            default: break
            }
            #expect(event.time >= lastTime)
            lastTime = event.time
        }
    }

    @Test("ArticleProject: 20-article pages, refresh fires page 1 then page 2, colliding file names")
    func articleProject() async throws {
        let (_, events) = try await record([.articleProject])
        checkInvariants(events)
        let api = apiURLs(events)
        #expect(api.first == "https://newsapi.org/v2/top-headlines?country=kr&page=1")
        let refreshes = zip(api, api.dropFirst()).filter { $0.hasSuffix("&page=1") && $1 == $0.dropLast() + "2" }
        #expect(!refreshes.isEmpty, "a refresh requests page 1 and page 2 back to back")
        #expect(api.contains { $0.contains("/v2/everything?q=") })
        let requests = images(events)
        // Different pictures under the same last path component (840_560.jpeg).
        let byName = Dictionary(grouping: requests) { URL(string: $0.url)?.lastPathComponent ?? "" }
        #expect(byName.values.contains { Set($0.map(\.content)).count > 1 })
        #expect(events.contains { if case .cancel = $0.kind { true } else { false } })
        #expect(events.contains { $0.kind == .relaunch } || events.filter { if case .session = $0.kind { true } else { false } }.count == 2)
    }

    @Test("Vanilladin: 10 a page, the page's covers at once, cover500 on detail, memory warnings, list and grid sizes")
    func vanilladin() async throws {
        let (_, events) = try await record([.vanilladin], sessions: 10)
        checkInvariants(events)
        let api = apiURLs(events)
        #expect(api.allSatisfy { $0.contains("MaxResults=10") })
        // After each page, its covers are requested together at one instant.
        var bursts: [Int] = []
        for (index, event) in events.enumerated() where { if case .api = event.kind { true } else { false } }() {
            guard let first = events[(index + 1)...].first, case .image = first.kind else { continue }
            bursts.append(events[(index + 1)...].prefix { event in
                guard case .image = event.kind else { return false }
                return event.time == first.time
            }.count)
        }
        #expect(bursts.allSatisfy { (1...10).contains($0) })
        #expect(bursts.filter { $0 == 10 }.count * 2 > bursts.count)
        let requests = images(events)
        #expect(requests.contains { $0.url.contains("/cover500/") })
        #expect(requests.contains { $0.priority == .prefetch })
        #expect(Set(requests.map(\.boxWidth)).count >= 2, "list and grid show covers at different sizes")
        let covers = Dictionary(grouping: requests) { $0.content }
        #expect(covers.values.contains { Set($0.map { $0.url }).count == 2 }, "coversum and cover500 of one book share its content")
        #expect(events.contains { if case .memoryWarning = $0.kind { true } else { false } })
    }

    @Test("Headlines: 20 a page, kr and us, offline launches show stored images, rotation changes the box")
    func headlines() async throws {
        let (_, events) = try await record([.headlines], sessions: 3)
        checkInvariants(events)
        let api = apiURLs(events)
        #expect(api.allSatisfy { $0.contains("pageSize=20") })
        #expect(api.contains { $0.contains("country=us") })
        #expect(events.contains { $0.kind == .relaunch })
        #expect(events.contains { $0.kind == .offline(true) })
        // While offline no API page is requested.
        var offline = false
        for event in events {
            if case .offline(let value) = event.kind { offline = value }
            if case .api = event.kind { #expect(!offline) }
            if case .session = event.kind { offline = false }
        }
        #expect(Set(images(events).map(\.boxWidth)).isSuperset(of: [358, 812]))
    }

    @Test("Picterest: 15 a page of originals; ixid gives one photo several URLs")
    func picterest() async throws {
        let (_, events) = try await record([.picterest])
        checkInvariants(events)
        #expect(apiURLs(events).allSatisfy { $0.contains("per_page=15") })
        let requests = images(events)
        #expect(requests.allSatisfy { $0.width >= 1000 }, "the grid loads originals")
        let urlsPerPhoto = Dictionary(grouping: requests, by: \.content).mapValues { Set($0.map(\.url)).count }
        #expect(urlsPerPhoto.values.contains { $0 > 1 })
        #expect(Set(requests.map(\.boxHeight)).count > 5, "masonry heights follow each photo's aspect")
    }

    @Test("My Market: banner loop, 20 a page, edits change content at one URL, deletes, fling cancels")
    func myMarket() async throws {
        let (_, events) = try await record([.myMarket], sessions: 3)
        checkInvariants(events)
        #expect(apiURLs(events).filter { $0.contains("/api/products") }.allSatisfy { $0.contains("items_per_page=20") })
        let requests = images(events)
        let banners = requests.filter { $0.url.contains("/banner/") }
        #expect(Set(banners.map(\.url)).count <= 5 && banners.count > 5)
        let cancels = events.filter { if case .cancel = $0.kind { true } else { false } }.count
        #expect(cancels * 5 > requests.count, "fast flings cancel many requests")
        // An edited URL comes back with other content after its invalidate.
        let invalidated = Set(events.compactMap { if case .invalidate(let url) = $0.kind { url } else { nil } })
        #expect(!invalidated.isEmpty)
        let contentsPerURL = Dictionary(grouping: requests, by: \.url).mapValues { Set($0.map(\.content)).count }
        #expect(invalidated.contains { (contentsPerURL[$0] ?? 0) > 1 })
    }

    @Test("same seed, same trace, byte for byte; another seed differs")
    func determinism() async throws {
        let (first, _) = try await record([.myMarket, .vanilladin], sessions: 2, seed: 9)
        let (second, _) = try await record([.myMarket, .vanilladin], sessions: 2, seed: 9)
        let (other, _) = try await record([.myMarket, .vanilladin], sessions: 2, seed: 10)
        #expect(first == second)
        #expect(other != first)
    }

    @Test("the committed small dataset regenerates byte for byte through the real origin")
    func committedDatasetRegenerates() async throws {
        let committed = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../datasets/vanilladin-small.jsonl").standardized.path
        var reader = try TraceReader(path: committed)
        let header = reader.header
        _ = try reader.readAll()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("icb-regen-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = directory + "/out.jsonl"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        _ = try await Recording.run([.vanilladin], sessions: header.sessions, seed: header.seed, output: output,
                                    generator: header.generator, store: directory + "/store")
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Data(contentsOf: URL(fileURLWithPath: committed)))
    }
}
