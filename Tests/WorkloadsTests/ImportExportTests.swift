import Foundation
import ImagePipeline
import Testing
@testable import Workloads

@Suite("Importers, exporters and statistics")
final class ImportExportTests {
    /// This test's own folder for the files it writes, removed with it.
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("icb-import-\(UUID().uuidString)").path

    init() throws { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    func temporary(_ name: String) -> String { folder + "/" + name }

    func write(_ text: String, _ name: String) throws -> String {
        let path = temporary(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A 1×1 PNG, so the importer can read real dimensions from a body.
    static let pixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

    func entry(_ url: String, start: String, mime: String, status: Int = 200, size: Int = 100, body: String? = nil, time: Double = 42) -> String {
        let content = body.map { #","text":"\#($0)","encoding":"base64""# } ?? ""
        return """
            {"startedDateTime":"\(start)","time":\(time),"request":{"method":"GET","url":"\(url)"},
             "response":{"status":\(status),"bodySize":\(size),"content":{"size":\(size),"mimeType":"\(mime)"\(content)}}}
            """
    }

    @Test("HAR: images and JSON pages become events, bodies give content and size, others are skipped")
    func harImport() throws {
        let har = """
            {"log":{"version":"1.2","entries":[
            \(entry("https://a.example/1.png", start: "2024-05-01T10:00:00.000Z", mime: "image/png", body: Self.pixelPNG)),
            \(entry("https://api.example/list", start: "2024-05-01T09:59:59.500Z", mime: "application/json; charset=utf-8")),
            \(entry("https://b.example/2.jpg", start: "2024-05-01T10:00:01.250Z", mime: "image/jpeg", size: 5000)),
            \(entry("https://b.example/2.jpg", start: "2024-05-01T10:00:02Z", mime: "image/jpeg", size: 5000)),
            \(entry("https://c.example/x.css", start: "2024-05-01T10:00:03Z", mime: "text/css")),
            \(entry("https://d.example/404.png", start: "2024-05-01T10:00:04Z", mime: "image/png", status: 404))
            ]}}
            """
        let input = try write(har, "in.har"), output = temporary("out.jsonl")
        let summary = try HARImporter.importFile(input, to: output, generator: "test")
        var expected = HARImporter.Summary()
        (expected.entries, expected.images, expected.apiPages) = (6, 3, 1)
        (expected.skipped, expected.sizedBy) = ([.notAPictureType: 1, .failed: 1], [.header: 1, .length: 2])
        #expect(summary == expected)
        var reader = try TraceReader(path: output)
        let events = try reader.readAll()
        #expect(events.map(\.time) == [0, 0, 500, 1750, 2500])
        #expect(events[1].kind == .api(url: "https://api.example/list"))
        guard case .image(let png) = events[2].kind, case .image(let jpeg) = events[3].kind, case .image(let again) = events[4].kind else {
            Issue.record("expected three image events"); return
        }
        #expect((png.width, png.height, png.format, png.bytes) == (1, 1, "png", Data(base64Encoded: Self.pixelPNG)!.count))
        // No body: 5,000 bytes of JPEG at 0.25 bytes a pixel, square.
        #expect((jpeg.width, jpeg.height, jpeg.bytes, jpeg.format, jpeg.fetchMilliseconds) == (141, 141, 5000, "jpeg", 42))
        #expect(jpeg.sizeEstimate == .contentLength && png.sizeEstimate == nil)
        #expect(jpeg.content == again.content && jpeg.content != png.content)
    }

    @Test("HAR timings: each part of a fetch is kept in the trace (-1 left out, ssl inside connect), read back as written; a part out of range is refused, or left out with the picture kept without --strict")
    func harTimings() throws {
        let timed = """
            {"startedDateTime":"2024-05-01T10:00:00Z","time":180.4,"request":{"method":"GET","url":"https://a.example/1.jpg"},
             "response":{"status":200,"bodySize":5000,"content":{"size":5000,"mimeType":"image/jpeg"}},
             "timings":{"blocked":2.6,"dns":-1,"connect":60,"ssl":30,"send":0.2,"wait":70.1,"receive":47.5}}
            """
        let reused = """
            {"startedDateTime":"2024-05-01T10:00:01Z","time":90,"request":{"method":"GET","url":"https://a.example/2.jpg"},
             "response":{"status":200,"bodySize":3000,"content":{"size":3000,"mimeType":"image/jpeg"}},
             "timings":{"blocked":-1,"dns":-1,"connect":-1,"send":1,"wait":60,"receive":29}}
            """
        let input = try write(#"{"log":{"version":"1.2","entries":[\#(timed),\#(reused)]}}"#, "timed.har"), output = temporary("timed.jsonl")
        _ = try HARImporter.importFile(input, to: output, generator: "test")
        var reader = try TraceReader(path: output)
        let images = try reader.readAll().compactMap { event -> ImageRequestEvent? in
            if case .image(let image) = event.kind { return image }
            return nil
        }
        #expect(images.map(\.fetchParts) == [
            .init(blocked: 3, dns: nil, connect: 60, send: 0, wait: 70, receive: 48),
            .init(blocked: nil, dns: nil, connect: nil, send: 1, wait: 60, receive: 29),
        ])
        #expect(images.map(\.fetchMilliseconds) == [180, 90])
        let text = try String(contentsOfFile: output, encoding: .utf8)
        #expect(text.contains(#""fetchBlocked":3,"fetchConnect":60,"fetchMilliseconds":180,"fetchReceive":48,"fetchSend":0,"fetchWait":70"#), "\(text)")

        let negative = try write(#"{"log":{"version":"1.2","entries":[\#(timed.replacingOccurrences(of: #""wait":70.1"#, with: #""wait":-7"#))]}}"#, "bad.har")
        #expect(throws: ImportError.self) { try HARImporter.importFile(negative, to: self.temporary("bad.jsonl"), generator: "test", options: .init(strict: true)) }
        // Without --strict the picture is kept, without its parts, and the damage is named.
        let lenient = try HARImporter.importFile(negative, to: temporary("lenient.jsonl"), generator: "test")
        #expect(lenient.images == 1 && lenient.damagedEntries == 1 && lenient.damaged.first?.contains("timings.wait") == true, "\(lenient)")
        var kept = try TraceReader(path: temporary("lenient.jsonl"))
        let keptImages = try kept.readAll().compactMap { event -> ImageRequestEvent? in
            if case .image(let image) = event.kind { return image }
            return nil
        }
        #expect(keptImages.map(\.fetchParts) == [.init()] && keptImages.map(\.fetchMilliseconds) == [180])
    }

    @Test("HAR without bodies: sizes from the URL's parameters, else the length (or its header), else unknown; never a made-up 0 cost")
    func harWithoutBodies() throws {
        let noSize = """
            {"startedDateTime":"2024-05-01T10:00:05Z","time":3,"request":{"method":"GET","url":"https://e.example/none.webp"},
             "response":{"status":200,"bodySize":-1,"content":{"size":-1,"mimeType":"image/webp"}}}
            """
        let header = """
            {"startedDateTime":"2024-05-01T10:00:06Z","time":3,"request":{"method":"GET","url":"https://e.example/h.png"},
             "response":{"status":200,"bodySize":-1,"headers":[{"name":"Content-Length","value":"40000"}],"content":{"size":-1,"mimeType":"image/png"}}}
            """
        let har = """
            {"log":{"version":"1.2","entries":[
            \(entry("https://images.example/photo-1?w=400&h=300&fit=crop", start: "2024-05-01T10:00:00Z", mime: "image/jpeg", size: 50_000)),
            \(entry("https://images.example/photo-2?width=640", start: "2024-05-01T10:00:01Z", mime: "image/jpeg", size: 50_000)),
            \(entry("https://cdn.example/covers/200x290/9788.jpg", start: "2024-05-01T10:00:02Z", mime: "image/jpeg", size: 50_000)),
            \(entry("https://cdn.example/plain.webp", start: "2024-05-01T10:00:03Z", mime: "image/webp", size: 17_000)),
            \(noSize), \(header)
            ]}}
            """
        let input = try write(har, "nobodies.har"), output = temporary("nobodies.jsonl")
        let summary = try HARImporter.importFile(input, to: output, generator: "test")
        #expect(summary.sizedBy == [.url: 3, .length: 2, .unknown: 1] && summary.unknownSizes == 1)
        var reader = try TraceReader(path: output)
        let images = try reader.readAll().compactMap { if case .image(let image) = $0.kind { image } else { nil } }
        #expect(images.map { "\($0.width)x\($0.height)" } == ["400x300", "640x640", "200x290", "316x316", "0x0", "200x200"])
        #expect(images.map(\.sizeEstimate) == [.url, .url, .url, .contentLength, nil, .contentLength])
        #expect(images.map(\.bytes) == [50_000, 50_000, 50_000, 17_000, 0, 40_000])
    }

    @Test("HAR streaming: entries in order are written as read, out of order sorted, the same trace either way; values span chunk refills")
    func harStreaming() throws {
        // A 3 MiB body with escapes, so captures cross the 1 MiB reads.
        let bigText = String(repeating: "A\\\"", count: 1 << 20)
        let entries = (0..<30).map { index in
            entry("https://s.example/\(index).jpg?w=\(100 + index)", start: "2024-05-01T10:00:\(String(format: "%02d", index)).000Z",
                  mime: index % 4 == 0 ? "application/json" : "image/jpeg", size: 1000 + index)
        }
        var withBig = entries
        withBig[7] = withBig[7].replacingOccurrences(of: #""size":1007,"#, with: #""size":1007,"text":"\#(bigText)","#)
        let ordered = "// exported by a viewer\n{\"log\":{\"creator\":{\"name\":\"x [ {\"},\"entries\":[" + withBig.joined(separator: ",") + "],\"version\":\"1.2\"}}"
        let shuffled = #"{"log":{"version":"1.2","entries":["# + (withBig[15...] + withBig[..<15]).joined(separator: ",") + "]}}"
        let orderedPath = try write(ordered, "ordered.har"), shuffledPath = try write(shuffled, "shuffled.har")
        let fromOrdered = temporary("ordered.jsonl"), fromShuffled = temporary("shuffled.jsonl")
        let first = try HARImporter.importFile(orderedPath, to: fromOrdered, generator: "test")
        let second = try HARImporter.importFile(shuffledPath, to: fromShuffled, generator: "test")
        #expect(first.entries == 30 && first.images == 22 && first.apiPages == 8 && first.sizedBy == [.url: 22])
        #expect(second.entries == 30 && second.images == 22)
        var a = try TraceReader(path: fromOrdered), b = try TraceReader(path: fromShuffled)
        let orderedEvents = try a.readAll(), shuffledEvents = try b.readAll()
        #expect(orderedEvents.map(\.time) == [0] + (0..<30).map { $0 * 1000 })
        func isImage(_ event: TraceEvent) -> Bool { if case .image = event.kind { true } else { false } }
        #expect(orderedEvents.map(isImage) == shuffledEvents.map(isImage))
        #expect(try HARImporter.events(from: Data(ordered.utf8), file: "o").events == orderedEvents)

        let lateVersion = try write(#"{"log":{"entries":["# + entries[1] + #"],"version":"9.9"}}"#, "late.har")
        #expect { try HARImporter.importFile(lateVersion, to: temporary("late.jsonl"), generator: "test") } throws: { error in
            "\(error)".contains("$.log.version: HAR version 9.9")
        }
        #expect(!FileManager.default.fileExists(atPath: temporary("late.jsonl")))
        for (text, expected) in [
            (#"{"log":{"entries":{}}}"#, "$.log.entries: expected an array"), (#"{"log":[]}"#, "$.log: expected an object"),
            (#"{"other":1}"#, "$.log: missing"), (#"{"log":{}}"#, "$.log.entries: missing"),
            (#"{"log":{"entries":[]}} x"#, "text after the document's end"), (#"{"log":{"entries":[{"a":"x"#, "ends inside a string"),
        ] {
            #expect { try HARImporter.events(from: Data(text.utf8), file: "t") } throws: { "\($0)".contains(expected) }
        }
    }

    @Test("the entry parser keeps the members the importer reads, as JSONSerialization gives them, and JSON's grammar")
    func entryParser() throws {
        let entry = #"{"startedDateTime":"2024-05-01T10:00:00Z","time":-1,"cache":{"x":[1,{"y":"}"}]},"request":{"method":"GET","url":"https:\/\/a.example\/\u00fc.jpg","headers":[{"name":"a","value":"]"}]},"response":{"status":200,"bodySize":-1.5e2,"headers":[{"name":"Content-Length","value":"12"}],"content":{"size":0,"mimeType":"image/jpeg","text":"QQ==","encoding":"base64","comment":true}},"timings":{"wait":0.25}}"#
        let parsed = try #require(try HAREntryParser.parse(Array(entry.utf8)) as? [String: Any])
        let reference = try #require(try JSONSerialization.jsonObject(with: Data(entry.utf8)) as? [String: Any])
        #expect(Set(parsed.keys) == ["startedDateTime", "time", "request", "response", "timings"])  // no pageref in this entry
        #expect((parsed["timings"] as? [String: Any])?["wait"] as? Double == 0.25)
        let request = try #require(parsed["request"] as? [String: Any]), response = try #require(parsed["response"] as? [String: Any])
        #expect(Set(request.keys) == ["url"] && request["url"] as? String == "https://a.example/\u{FC}.jpg")
        #expect(Set(response.keys) == ["status", "bodySize", "headers", "content"])
        let content = try #require(response["content"] as? [String: Any])
        #expect(Set(content.keys) == ["size", "mimeType", "text", "encoding"])
        let referenceResponse = try #require(reference["response"] as? [String: Any])
        #expect((response["bodySize"] as? NSNumber)?.doubleValue == (referenceResponse["bodySize"] as? NSNumber)?.doubleValue)
        #expect((response["headers"] as? [[String: Any]])?.first?["value"] as? String == "12")
        for bad in ["05", "1.", "-", "1e", ".5", "+1", "tru", "nul", "0x10", "1.5.2"] {
            #expect(throws: HAREntryParser.Malformed.self, "\(bad)") { try HAREntryParser.parse(Array(#"{"time":\#(bad)}"#.utf8)) }
        }
        for good in ["0", "-0", "-0.5e+3", "12", "1E9", "3.25"] {
            let value = try #require(try HAREntryParser.parse(Array(#"{"time":\#(good)}"#.utf8)) as? [String: Any])
            #expect((value["time"] as? NSNumber)?.doubleValue == Double(good), "\(good)")
        }
        for cut in [#"{"time":1"#, #"{"time":"a"#, #"{"cache":[1,2"#, #"{"time":1} x"#, #"{"request":{"url":"a\q"}}"#] {
            #expect(throws: HAREntryParser.Malformed.self, "\(cut)") { try HAREntryParser.parse(Array(cut.utf8)) }
        }
    }

    @Test("a trace's size estimate reads back, and an unknown one is refused by name")
    func sizeEstimateField() throws {
        let line = #"{"image":{"boxHeight":1,"boxWidth":1,"bytes":1,"content":1,"format":"jpeg","height":1,"id":1,"priority":"visible","scale":1,"sizeEstimate":"%@","url":"u","width":1},"t":0,"type":"image"}"#
        for estimate in ImageRequestEvent.SizeEstimate.allCases {
            let event = try Array(line.replacingOccurrences(of: "%@", with: estimate.rawValue).utf8).withUnsafeBufferPointer { try TraceLineDecoder.event(from: $0) }
            guard case .image(let image) = event.kind else { Issue.record("not an image"); continue }
            #expect(image.sizeEstimate == estimate)
        }
        #expect(throws: JSONLineError.self) {
            try Array(line.replacingOccurrences(of: "%@", with: "guessed").utf8).withUnsafeBufferPointer { try TraceLineDecoder.event(from: $0) }
        }
    }

    @Test("HAR: a bad field is named by its path; --strict refuses the file there, otherwise the entry is skipped and named")
    func harErrors() throws {
        let strict = HARImporter.Options(strict: true)
        let bad = try write(#"{"log":{"entries":[{"startedDateTime":"yesterday","request":{"url":"x"},"response":{"status":200,"content":{}}}]}}"#, "bad.har")
        let badDate = ImportError.badField(file: bad, path: "$.log.entries[0].startedDateTime", reason: "\"yesterday\": not an ISO 8601 date and time (YYYY-MM-DDTHH:MM:SS[.fff] and a zone, Z or ±HH:MM)")
        #expect(throws: badDate) { try HARImporter.importFile(bad, to: temporary("o.jsonl"), generator: "test", options: strict) }
        // Lenient, the one entry is skipped as damaged, so nothing is left and the refusal names it.
        #expect { try HARImporter.importFile(bad, to: temporary("o.jsonl"), generator: "test") } throws: {
            "\($0)".contains("no picture or JSON responses among 1 entries") && "\($0)".contains(badDate.description)
        }
        let missing = try write(#"{"log":{"entries":[{"startedDateTime":"2024-05-01T10:00:00Z","request":{},"response":{}}]}}"#, "missing.har")
        #expect(throws: ImportError.badField(file: missing, path: "$.log.entries[0].request.url", reason: "missing")) {
            try HARImporter.importFile(missing, to: temporary("o.jsonl"), generator: "test", options: strict)
        }
        let notJSON = try write("{\"log\":", "cut.har")
        #expect { try HARImporter.importFile(notJSON, to: temporary("o.jsonl"), generator: "test") } throws: { error in
            if case ImportError.notJSON(let file, _) = error { file == notJSON } else { false }
        }
    }

    @Test("API responses: each service's shape, and the path of a bad field")
    func apiResponses() throws {
        let news = try ServiceResponses.parse(Data(#"{"status":"ok","totalResults":2,"articles":[{"url":"u1","urlToImage":"https://i/1.jpg"},{"url":"u2","urlToImage":null}]}"#.utf8), service: .newsapi, file: "n")
        #expect(news.total == 2 && news.items.map { $0.images.count } == [1, 0])
        let photos = try ServiceResponses.parse(Data(#"[{"id":"p","width":6000,"height":4000,"urls":{"raw":"https://images.unsplash.com/photo-1?ixid=a","thumb":"https://images.unsplash.com/photo-1?w=200"}}]"#.utf8), service: .unsplash, file: "u")
        #expect(photos.items[0].image("urls.raw")?.width == 6000)
        let market = try ServiceResponses.parse(Data(#"{"pageNo":1,"hasNext":true,"pages":[{"id":11,"thumbnail":"https://s3/x_thumb"}]}"#.utf8), service: .openmarket, file: "m")
        #expect(market.hasNext == true && market.items[0].id == "11")
        #expect(throws: ImportError.badField(file: "n", path: "$.articles[0].urlToImage", reason: "expected a string")) {
            try ServiceResponses.parse(Data(#"{"articles":[{"urlToImage":5}]}"#.utf8), service: .newsapi, file: "n")
        }
        #expect(throws: ImportError.badField(file: "a", path: "$.item", reason: "missing")) {
            try ServiceResponses.parse(Data(#"{"items":[]}"#.utf8), service: .aladin, file: "a")
        }
    }

    static let realdata = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../shared/realdata").standardized.path

    @Test("API responses: every real file in ../shared/realdata", .enabled(if: FileManager.default.fileExists(atPath: realdata), "skipped: the real responses are read from ../shared/realdata beside the repository, absent here"))
    func realResponses() throws {
        var catalogue = URLCatalogue()
        let files = try FileManager.default.subpathsOfDirectory(atPath: Self.realdata).filter { $0.hasSuffix(".json") }.sorted()
        for file in files { try catalogue.add(file: Self.realdata + "/" + file) }
        let aladin = catalogue.urls(for: .aladin)
        #expect(aladin.count == 50 && aladin.allSatisfy { $0.contains("/coversum/") })
        // Unsplash: five sizes of one photo share a path and differ in the query.
        let raws = catalogue.entries.filter { $0.image.role == "urls.raw" }
        #expect(raws.count >= 60 && raws.allSatisfy { $0.image.width ?? 0 > 0 })
        // NewsAPI: the nulls are skipped, the NPR identity-in-query URLs kept.
        let news = catalogue.urls(for: .newsapi)
        #expect(news.contains { $0.contains("npr.brightspotcdn.com") && $0.contains("?url=") })
        #expect(!news.isEmpty && news.count < 240)
        // The open market's copy-pasted spaces survive as they are.
        #expect(catalogue.urls(for: .openmarket).contains { $0.contains("media  .yagom-academy") })
        // And lastPathComponent really collides on them.
        let names = Dictionary(grouping: news) { CacheKeyStrategy(.lastPathComponent).key(for: $0) }
        #expect(names.values.contains { Set($0).count > 1 })
    }

    static func image(_ id: Int, _ url: String, content: UInt64, bytes: Int = 1000) -> TraceEventKind {
        .image(ImageRequestEvent(id: id, url: url, content: content, bytes: bytes, width: 10, height: 10, format: "jpeg",
                                 boxWidth: 10, boxHeight: 10, scale: 1, priority: .visible))
    }

    func smallTrace(_ name: String) throws -> String {
        let path = temporary(name)
        let writer = try TraceWriter(path: path, header: TraceHeader(app: "t", modelVersion: "1", seed: 1, sessions: 2, generator: "test"))
        for event in [
            TraceEvent(time: 0, .session(1)),
            TraceEvent(time: 0, Self.image(1, "https://a/x/840_560.jpeg", content: 1, bytes: 100)),
            TraceEvent(time: 1500, Self.image(2, "https://b/y/840_560.jpeg", content: 2, bytes: 200)),
            TraceEvent(time: 2000, Self.image(3, "https://a/x/840_560.jpeg", content: 1, bytes: 100)),
            TraceEvent(time: 2500, .invalidate(url: "https://a/x/840_560.jpeg")),
            TraceEvent(time: 3000, Self.image(4, "https://a/x/840_560.jpeg", content: 9, bytes: 100)),
            TraceEvent(time: 0, .session(2)),
            TraceEvent(time: 700, Self.image(5, "https://a/x/840_560.jpeg", content: 9, bytes: 100)),
        ] { try writer.append(event) }
        try writer.close()
        return path
    }

    @Test("the origin gets each service's list URLs once, by the field the app draws")
    func originURLs() throws {
        var catalogue = URLCatalogue()
        let news = CataloguedImage(url: "https://i.example/1.jpg", role: "urlToImage")
        let raw = CataloguedImage(url: "https://images.unsplash.com/photo-1?ixid=a", role: "urls.raw", width: 6000, height: 4000)
        let thumb = CataloguedImage(url: "https://images.unsplash.com/photo-1?w=200", role: "urls.thumb")
        catalogue.entries = [
            .init(service: .newsapi, file: "a.json", item: "1", image: news),
            .init(service: .newsapi, file: "b.json", item: "2", image: news),  // the same picture in two responses
            .init(service: .unsplash, file: "u.json", item: "p", image: raw),
            .init(service: .unsplash, file: "u.json", item: "p", image: thumb),
        ]
        #expect(catalogue.originImageURLs == ["newsapi": [news.url], "unsplash": [raw.url]])
    }
}

@Suite("HAR import: fuzzing regressions")
struct HARFuzzRegressionTests {
    @Test("a time too large for milliseconds is a typed error naming the field, not a trap")
    func hugeTime() throws {
        let har = #"{"log":{"version":"1.2","entries":[{"startedDateTime":"2024-05-01T10:00:00Z","time":1.2e32,"request":{"method":"GET","url":"https://b.example/2.jpg"},"response":{"status":200,"content":{"size":5000,"mimeType":"image/jpeg"}}}]}}"#
        let strict = HARImporter.Options(strict: true)
        #expect(throws: ImportError.self) { try HARImporter.events(from: Data(har.utf8), file: "huge.har", options: strict) }
        do {
            _ = try HARImporter.events(from: Data(har.utf8), file: "huge.har", options: strict)
        } catch {
            #expect("\(error)".contains("$.log.entries[0].time"), "\(error)")
        }
        let lenient = try HARImporter.events(from: Data(har.utf8), file: "huge.har").summary
        #expect(lenient.skipped == [.damaged: 1] && lenient.damaged.first?.contains("$.log.entries[0].time") == true)
    }
}

extension HARFuzzRegressionTests {
    @Test("HAR values out of range are refused by their path: version, negative time and sizes; -1 means unknown")
    func outOfRange() {
        func har(version: String = "1.2", time: String = "40", size: String = "5000") -> Data {
            Data(#"{"log":{"version":"\#(version)","entries":[{"startedDateTime":"2024-05-01T10:00:00Z","time":\#(time),"request":{"method":"GET","url":"https://b.example/2.jpg"},"response":{"status":200,"bodySize":-1,"content":{"size":\#(size),"mimeType":"image/jpeg"}}}]}}"#.utf8)
        }
        func refusal(_ data: Data) -> String? {
            do { _ = try HARImporter.events(from: data, file: "x.har", options: .init(strict: true)); return nil } catch { return "\(error)" }
        }
        #expect(refusal(har(version: "9.9"))?.contains("$.log.version: HAR version 9.9") == true)
        #expect(refusal(har(time: "-40"))?.contains("$.log.entries[0].time") == true)
        #expect(refusal(har(size: "-1000"))?.contains("$.log.entries[0].response.content.size") == true)
        #expect(refusal(har(version: "1.1", time: "-1", size: "-1")) == nil)
    }

    @Test("a HAR with no image or JSON response is refused, unless an empty trace is asked for")
    func emptyHAR() throws {
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(UUID().uuidString).har").path
        let output = input + ".jsonl"
        defer { for path in [input, output] { try? FileManager.default.removeItem(atPath: path) } }
        try Data(#"{"log":{"version":"1.2","entries":[]}}"#.utf8).write(to: URL(fileURLWithPath: input))
        #expect(throws: ImportError.self) { try HARImporter.importFile(input, to: output, generator: "test") }
        #expect(!FileManager.default.fileExists(atPath: output))
        let summary = try HARImporter.importFile(input, to: output, generator: "test", options: .init(allowsEmpty: true))
        #expect(summary.entries == 0 && FileManager.default.fileExists(atPath: output))
    }

    @Test("an entry dated centuries after the first is a typed error naming it, not a trap downstream")
    func farFutureDate() {
        let entry = { (date: String) in
            #"{"startedDateTime":"\#(date)","time":5,"request":{"method":"GET","url":"https://b.example/2.jpg"},"response":{"status":200,"content":{"size":5000,"mimeType":"image/jpeg"}}}"#
        }
        let har = #"{"log":{"version":"1.2","entries":[\#(entry("2024-05-01T10:00:00Z")),\#(entry("9999-12-31T23:59:59Z"))]}}"#
        do {
            _ = try HARImporter.events(from: Data(har.utf8), file: "far.har")
            Issue.record("a date in 9999 was imported")
        } catch {
            #expect("\(error)".contains("$.log.entries[1].startedDateTime"), "\(error)")
        }
    }
}

@Suite("HAR dates")
struct ISO8601TimeTests {
    @Test("dates parse exactly, with fractions and offsets; malformed ones are nil, never a crash")
    func parsing() {
        #expect(ISO8601Time.milliseconds("1970-01-01T00:00:00Z") == 0)
        #expect(ISO8601Time.milliseconds("2024-05-01T10:00:00.250Z") == 1_714_557_600_250)
        #expect(ISO8601Time.milliseconds("2024-05-01T12:00:00+02:00") == 1_714_557_600_000)
        #expect(ISO8601Time.milliseconds("2024-05-01T05:30:00-0430") == 1_714_557_600_000)
        #expect(ISO8601Time.milliseconds("2000-02-29T00:00:00Z") == 951_782_400_000)
        // What crashed ICU: a fraction of fifty digits. Only the first nine count.
        let long = ISO8601Time.milliseconds("2024-05-01T10:00:00.0005555555555555555555555555555555555555555555555555Z")
        #expect(long.map { abs($0 - 1_714_557_600_000.5556) < 0.001 } == true)
        for bad in ["", "2024-05-01", "2024-13-01T00:00:00Z", "2024-05-01T10:00:00", "2024-05-01T10:00:00.Z", "2024-05-01T24:00:00Z", "x024-05-01T10:00:00Z"] {
            #expect(ISO8601Time.milliseconds(bad) == nil, "\(bad)")
        }
    }
}
