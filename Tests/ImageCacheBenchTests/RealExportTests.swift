import Foundation
import Testing
import Workloads
import CacheSimulation
@testable import Bench

/// HAR files shaped as the tools that write them write them (WebPageTest runs, DevTools with
/// bodies, proxies with redacted or base64 bodies, exports with a byte order mark or gzip-compressed),
/// each a small fixture in the project's own words, imported and run as a user would; and the real
/// exports beside the project, when they are there.
@Suite("Real exports: HAR files as tools write them")
struct RealExportTests {
    let directory = BenchProcess.temporaryFile("exports")

    /// A 1×1 PNG and a 1×1 GIF, whole.
    static let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    static let gif = "R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw=="

    struct Entry {
        var url: String
        var start: String
        var mime = "image/jpeg"
        var status = 200
        var size = 5_000
        var bodySize: Int?
        var headers: [(String, String)] = []
        var text: String?
        var base64 = true
        var page: String?

        var json: String {
            let body = text.map { #","text":\#(Self.quoted($0))"# + (base64 ? #","encoding":"base64""# : "") } ?? ""
            let headerList = headers.map { #"{"name":"\#($0.0)","value":"\#($0.1)"}"# }.joined(separator: ",")
            return #"{"#
                + (page.map { #""pageref":"\#($0)","# } ?? "")
                + #""startedDateTime":"\#(start)","time":30,"request":{"method":"GET","url":"\#(url)"},"response":{"status":\#(status),"headers":[\#(headerList)],"bodySize":\#(bodySize ?? size),"content":{"size":\#(size),"mimeType":"\#(mime)"\#(body)}}}"#
        }

        static func quoted(_ text: String) -> String {
            String(decoding: try! JSONSerialization.data(withJSONObject: [text]), as: UTF8.self).dropFirst().dropLast().description
        }
    }

    static func har(_ entries: [Entry], pages: String = "", creator: String = "test") -> String {
        #"{"log":{"version":"1.2","creator":{"name":"\#(creator)","version":"1"},"pages":[\#(pages)],"entries":["#
            + entries.map(\.json).joined(separator: ",") + "]}}"
    }

    func file(_ name: String, _ data: Data) throws -> String {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        return url.path
    }

    func imported(_ name: String, _ text: String, _ options: [String] = []) async throws -> (BenchProcess.Output, String) {
        let path = try file(name, Data(text.utf8))
        let trace = directory.appendingPathComponent(name + ".jsonl").path
        return (try await BenchProcess.run(["import", "har", path, "-o", trace] + options), trace)
    }

    func memoryHitRatio(_ trace: String) async throws -> Double {
        let ran = try await BenchProcess.run(["simulate", trace, "--policy", "lru", "--memory", "64MB", "--disk", "none", "--json", "--no-files"])
        #expect(ran.status == 0, "\(ran.stderr)")
        let results = try JSONDecoder().decode(BenchResults.self, from: Data(ran.stdout.utf8))
        return try #require(results.simulations.first).result.hitRatio
    }

    @Test("WebPageTest: five cold runs are five devices (no hit between runs); a repeat view is its run relaunched; --one-session joins them")
    func webPageTestRuns() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        var entries: [Entry] = [], pages: [String] = []
        for run in 1...5 {
            for view in ["First", "Repeat"] where run <= 2 || view == "First" {
                let id = "page_\(run)_\(view == "First" ? 0 : 1)"
                pages.append(#"{"id":"\#(id)","title":"Run \#(run), \#(view) View for https://shop.example/","startedDateTime":"2024-05-01T10:0\#(run):00Z","_run":\#(run),"_cached":\#(view == "First" ? 0 : 1)}"#)
                for picture in 0..<6 {
                    entries.append(Entry(url: "https://img.example/p\(picture).jpg?w=400&h=300", start: "2024-05-01T10:0\(run):\(view == "First" ? "0" : "3")\(picture)Z", size: 30_000, page: id))
                }
            }
        }
        let text = Self.har(entries, pages: pages.joined(separator: ","), creator: "WebPageTest")
        let (ran, trace) = try await imported("wpt.har", text)
        #expect(ran.status == 0, "\(ran.stderr)")
        #expect(ran.stdout.contains("sessions: WebPageTest: 5 runs, each its own device from an empty cache; 2 repeat views"), "\(ran.stdout)")
        var reader = try TraceReader(path: trace)
        let events = try reader.readAll()
        #expect(reader.header.sessions == 5)
        #expect(events.filter { if case .relaunch = $0.kind { true } else { false } }.count == 2)
        // Each run starts from an empty cache: its first view misses everything; a repeat view's
        // memory starts empty too (relaunched), so the only hits would be a disk's.
        #expect(try await memoryHitRatio(trace) == 0)
        let (joined, oneTrace) = try await imported("wpt-one.har", text, ["--one-session"])
        #expect(joined.status == 0 && joined.stdout.contains("kept as one session, as asked"), "\(joined.stdout)")
        #expect(try await memoryHitRatio(oneTrace) > 0.8)
    }

    @Test("Browsertime: each iteration is a device of its own; DevTools pages browsed in one sitting are one")
    func iterationsAndSittings() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let pages = (1...3).map { #"{"id":"page_\#($0)","title":"https://news.example/","startedDateTime":"2024-05-01T10:00:00Z"}"# }.joined(separator: ",")
        let entries = (1...3).flatMap { page in
            (0..<4).map { Entry(url: "https://img.example/\($0).jpg?w=300&h=200", start: "2024-05-01T10:0\(page):0\($0)Z", size: 20_000, page: "page_\(page)") }
        }
        let (browsertime, first) = try await imported("bt.har", Self.har(entries, pages: pages, creator: "Browsertime"))
        #expect(browsertime.status == 0 && browsertime.stdout.contains("Browsertime: 3 iterations"), "\(browsertime.stdout)")
        #expect(try TraceReader(path: first).header.sessions == 3)
        // Pages and creator written after the entries (JSON objects have no order): the same devices.
        let late = #"{"log":{"version":"1.2","entries":["# + entries.map(\.json).joined(separator: ",")
            + #"],"pages":[\#(pages)],"creator":{"name":"Browsertime","version":"1"}}}"#
        let (lateRan, lateTrace) = try await imported("late.har", late)
        #expect(lateRan.status == 0 && lateRan.stdout.contains("Browsertime: 3 iterations"), "\(lateRan.stdout)")
        var lateReader = try TraceReader(path: lateTrace), firstReader = try TraceReader(path: first)
        #expect(lateReader.header.sessions == 3)
        #expect(try lateReader.readAll() == firstReader.readAll())
        let (devtools, second) = try await imported("devtools.har", Self.har(entries, pages: pages, creator: "WebInspector"))
        #expect(devtools.status == 0 && devtools.stdout.contains("3 pages browsed in one sitting: one session"), "\(devtools.stdout)")
        #expect(try TraceReader(path: second).header.sessions == 1)
    }

    @Test("sizes from the best evidence: a header from the body, content.size 0 falls back to the lengths, a URL size only when the length allows it, never a crop box")
    func sizes() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let entries = [
            Entry(url: "https://a.example/1.png", start: "2024-05-01T10:00:00Z", mime: "image/png", size: 68, text: Self.png),
            // WebPageTest and chrome-har write 0 for unknown: the Content-Length is the length.
            Entry(url: "https://a.example/2.jpg", start: "2024-05-01T10:00:01Z", size: 0, bodySize: 0, headers: [("Content-Length", "24000")]),
            // A Thumbor crop box: 6641×4084 is the region cut, 680×384 what is served.
            Entry(url: "https://t.example/unsafe/0x348:6641x4084/680x384/smart/p.webp", start: "2024-05-01T10:00:02Z", mime: "image/webp", size: 8_800),
            // A tracking pixel whose query names a size 43 bytes cannot hold.
            Entry(url: "https://b.example/pixel.gif?w=757&h=757", start: "2024-05-01T10:00:03Z", mime: "image/gif", size: 43),
            Entry(url: "https://c.example/cover.jpg?w=400&h=600", start: "2024-05-01T10:00:04Z", size: 40_000),
        ]
        let (ran, trace) = try await imported("sizes.har", Self.har(entries))
        #expect(ran.status == 0, "\(ran.stderr)")
        #expect(ran.stdout.contains("sized by: header 1, url 2, length 2"), "\(ran.stdout)")
        var reader = try TraceReader(path: trace)
        let images = try reader.readAll().compactMap { if case .image(let image) = $0.kind { image } else { nil } }
        #expect(images.map { "\($0.width)x\($0.height)" } == ["1x1", "310x310", "680x384", "9x9", "400x600"])
        #expect(images.map(\.bytes) == [70, 24_000, 8_800, 43, 40_000])  // the PNG body's own length
        #expect(images.map(\.sizeEstimate) == [nil, .contentLength, .url, .contentLength, .url])
    }

    @Test("only pictures are picture requests: 204 beacons, errors, redirects, HTML bodies skipped by reason; SVG and ICO bodies sized; a 304 of a seen picture kept")
    func onlyPictures() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let svg = #"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="120" height="40px" viewBox="0 0 60 20"><rect/></svg>"#
        let viewBoxOnly = #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24.5 24"><path/></svg>"#
        // An icon directory of a 16×16 and a 48×48 image (16 bytes an entry).
        let ico = (Data([0, 0, 1, 0, 2, 0]) + [16, 48].flatMap { side in [UInt8(side), UInt8(side), 0, 0, 1, 0, 32, 0] + [UInt8](repeating: 0, count: 8) })
            .base64EncodedString()
        let entries = [
            Entry(url: "https://beacon.example/b.gif?e=1", start: "2024-05-01T10:00:00Z", mime: "image/gif", status: 204, size: 0),
            Entry(url: "https://a.example/missing.png", start: "2024-05-01T10:00:01Z", mime: "image/png", status: 404, size: 120),
            Entry(url: "https://a.example/moved.jpg", start: "2024-05-01T10:00:02Z", status: 302, size: 0),
            Entry(url: "https://a.example/error.jpg", start: "2024-05-01T10:00:03Z", size: 30, text: "<html><body>gone</body></html>", base64: false),
            Entry(url: "https://a.example/logo.svg", start: "2024-05-01T10:00:04Z", mime: "image/svg+xml", size: svg.utf8.count, text: svg, base64: false),
            Entry(url: "https://a.example/icon.svg", start: "2024-05-01T10:00:05Z", mime: "image/svg+xml", size: viewBoxOnly.utf8.count, text: viewBoxOnly, base64: false),
            Entry(url: "https://a.example/favicon.ico", start: "2024-05-01T10:00:06Z", mime: "image/x-icon", size: 40, text: ico),
            Entry(url: "https://a.example/pic.gif", start: "2024-05-01T10:00:07Z", mime: "image/gif", size: 43, text: Self.gif),
            Entry(url: "https://a.example/pic.gif", start: "2024-05-01T10:00:08Z", mime: "image/gif", status: 304, size: 0),
            Entry(url: "https://a.example/never.gif", start: "2024-05-01T10:00:09Z", mime: "image/gif", status: 304, size: 0),
        ]
        let (ran, trace) = try await imported("kinds.har", Self.har(entries))
        #expect(ran.status == 0, "\(ran.stderr)")
        #expect(ran.stdout.contains("5 picture requests and 0 API pages from 10 entries (1 of the pictures 304 revalidations"), "\(ran.stdout)")
        #expect(ran.stdout.contains("skipped 5: 1 204 No Content; 1 redirects; 1 failed or aborted (status 0, 4xx, 5xx); 1 bodies that are not pictures by their bytes; 1 304s of URLs not fetched earlier"), "\(ran.stdout)")
        var reader = try TraceReader(path: trace)
        let images = try reader.readAll().compactMap { if case .image(let image) = $0.kind { image } else { nil } }
        #expect(images.map { "\($0.format) \($0.width)x\($0.height)" } == ["svg 120x40", "svg 25x24", "ico 48x48", "gif 1x1", "gif 1x1"])
        #expect(images[3].content == images[4].content && images[4].bytes == images[3].bytes)
    }

    @Test("lenient where the format allows: a byte order mark, a .har.gz, a redacted or bad base64 body sized from its lengths and named; --strict refuses it")
    func lenient() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let entries = [
            Entry(url: "https://a.example/1.jpg", start: "2024-05-01T10:00:00Z", size: 12_000, text: "MANUALLY REMOVED", base64: false),
            Entry(url: "https://a.example/2.jpg", start: "2024-05-01T10:00:01Z", size: 9_000, text: "not*base64!"),
            Entry(url: "https://a.example/3.png", start: "2024-05-01T10:00:02Z", mime: "image/png", size: 68, text: Self.png),
        ]
        let text = Self.har(entries)
        let bom = try file("bom.har", Data([0xEF, 0xBB, 0xBF]) + Data(text.utf8))
        let ran = try await BenchProcess.run(["import", "har", bom, "-o", directory.path + "/bom.jsonl"])
        #expect(ran.status == 0, "\(ran.stderr)")
        #expect(ran.stdout.contains("3 picture requests"), "\(ran.stdout)")
        #expect(ran.stdout.contains("damaged 2 (--strict refuses them)") && ran.stdout.contains("$.log.entries[1].response.content.text: not valid base64"), "\(ran.stdout)")
        #expect(ran.stdout.contains("sized by: header 1, length 2"), "\(ran.stdout)")
        let strict = try await BenchProcess.run(["import", "har", bom, "-o", directory.path + "/strict.jsonl", "--strict"])
        #expect(strict.status == 1 && strict.stderr.contains("$.log.entries[0]"), "\(strict.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/strict.jsonl"))
        // The same file gzip-compressed reads the same.
        let plain = try file("plain.har", Data(text.utf8))
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["-k", plain]
        try gzip.run()
        gzip.waitUntilExit()
        let fromGzip = try await BenchProcess.run(["import", "har", plain + ".gz", "-o", directory.path + "/gz.jsonl"])
        #expect(fromGzip.status == 0, "\(fromGzip.stderr)")
        var fromGz = try TraceReader(path: directory.path + "/gz.jsonl"), fromBOM = try TraceReader(path: directory.path + "/bom.jsonl")
        #expect(try fromGz.readAll() == fromBOM.readAll())
    }

    @Test("a trace carries no folder of the user's and no credentials from a URL")
    func nothingPrivate() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let entries = [Entry(url: "https://user:s3cret@img.example/a.jpg?w=200&h=200", start: "2024-05-01T10:00:00Z", size: 8_000)]
        let (ran, trace) = try await imported("private.har", Self.har(entries))
        #expect(ran.status == 0, "\(ran.stderr)")
        let written = try String(contentsOfFile: trace, encoding: .utf8)
        #expect(!written.contains("s3cret") && !written.contains("user@"))
        #expect(!written.contains(directory.path), "the generator names the HAR's file only")
        #expect(written.contains("import har private.har"))
        // Results name their inputs and command without the folders either.
        let run = directory.appendingPathComponent("run").path
        #expect(try await BenchProcess.run(["simulate", trace, "--policy", "lru", "-o", run]).status == 0)
        let results = try String(contentsOfFile: run + "/results.json", encoding: .utf8)
        #expect(!results.contains(directory.path) && !results.contains("s3cret"), "no folder of the user's in results.json")
        #expect(try Gate.load(run + "/results.json").inputs?.map(\.path) == ["private.har.jsonl"])
    }

    @Test("credentials leave a URL's authority only; the rest stays byte for byte", arguments: [
        ("https://user:s3cret@img.example/a.jpg?next=@me", "https://img.example/a.jpg?next=@me"),
        ("https://u@h.example", "https://h.example"),
        ("https://img.example/a@2x.jpg", "https://img.example/a@2x.jpg"),
        ("/relative/a@b.png", "/relative/a@b.png"),
    ])
    func credentials(_ url: String, _ expected: String) {
        #expect(URLCredentials.removed(from: url) == expected)
    }

    /// The real exports beside the project (third-party test data, read only), when present.
    static let realExports = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/realhar")

    @Test("every real export imports, or is refused for a reason a user can act on; its counts add up to its entries")
    func realExports() async throws {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: Self.realExports.path).filter({ $0.hasSuffix(".har") }), !names.isEmpty else {
            print("real exports: \(Self.realExports.path) is absent; skipped")
            return
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for name in names.sorted() {
            let input = Self.realExports.appendingPathComponent(name).path
            let before = try Data(contentsOf: URL(fileURLWithPath: input))
            let trace = directory.appendingPathComponent(name + ".jsonl").path
            let ran = try await BenchProcess.run(["import", "har", input, "-o", trace])
            #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == before, "\(name) untouched")
            guard ran.status == 0 else {
                #expect(ran.status == 1 && (ran.stderr.contains("no picture or JSON responses") || ran.stderr.contains("expected an object")
                    || ran.stderr.contains("not valid JSON")), "\(name): \(ran.stderr)")
                continue
            }
            // wrote …: I picture requests and A API pages from E entries; skipped S: …
            let numbers = ran.stdout.split(separator: "\n").first.map { line in line.split(separator: " ").compactMap { Int($0) } } ?? []
            let skipped = ran.stdout.firstMatch(of: /skipped (\d+):/).flatMap { Int($0.1) } ?? 0
            #expect(numbers.count >= 3 && numbers[0] + numbers[1] + skipped == numbers[2], "\(name): \(ran.stdout)")
            let stats = try await BenchProcess.run(["stats", trace])
            #expect(stats.status == 0, "\(name): \(stats.stderr)")
        }
    }

    @Test("--network recorded on the real exports with fetch times: the fitted network is closer to them than any preset")
    func recordedNetworks() async throws {
        let names = ["fiddler-nopages-bodies.har", "fiddler-cnn-bom.har"]
        guard names.allSatisfy({ FileManager.default.fileExists(atPath: Self.realExports.appendingPathComponent($0).path) }) else {
            print("real exports: \(Self.realExports.path) is absent; skipped")
            return
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var traces: [String] = []
        for name in names {
            let trace = directory.appendingPathComponent(name + ".jsonl").path
            let ran = try await BenchProcess.run(["import", "har", Self.realExports.appendingPathComponent(name).path, "-o", trace])
            #expect(ran.status == 0, "\(name): \(ran.stderr)")
            traces.append(trace)
            // Every picture keeps its fetch's parts (HAR timings): a connection, the first byte, the body.
            let images = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter { $0.contains(#""type":"image""#) }
            #expect(!images.isEmpty && images.allSatisfy { $0.contains(#""fetchConnect":"#) && $0.contains(#""fetchWait":"#) && $0.contains(#""fetchReceive":"#) }, "\(name)")
        }
        let output = try await BenchProcess.run(["simulate"] + traces + ["--network", "recorded", "--json", "--no-files"])
        #expect(output.status == 0, "\(output.stderr)")
        let rows = try #require(try BenchCommandsTests.json(output).recordedNetworks)
        #expect(rows.map(\.agreement.fetches) == [58, 14])
        for row in rows {
            #expect(row.presets.count == 3 && row.presets.values.allSatisfy { $0.mape > row.agreement.mape }, "\(row.trace)")
        }
        // The fetches' own account of their connections (HAR timings) brings the fit closer than their totals alone.
        for (trace, row) in zip(traces, rows) {
            let text = try String(contentsOfFile: trace, encoding: .utf8)
            let partsLess = directory.appendingPathComponent("totals-only.jsonl").path
            try text.replacing(/"fetch(Blocked|DNS|Connect|Send|Wait|Receive)":\d+,/, with: "").write(toFile: partsLess, atomically: true, encoding: .utf8)
            let totals = try #require(RecordedNetwork.fit(try RecordedWorkload.load(path: partsLess)))
            #expect(row.agreement.mape < totals.agreement.mape, "\(trace): \(row.agreement.mape) against \(totals.agreement.mape) from totals alone")
        }
        // Fiddler's capture fetched from hosts 2 ms and 95 ms away: each is fitted at its own round trip.
        #expect((rows[0].profile.hostRoundTrips?.count ?? 0) > 3)
    }
}
