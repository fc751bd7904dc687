import AsyncHTTPClient
import Foundation
import ImagePipeline
import OriginServer
import Testing

@Suite("imagecache-bench command line")
struct CommandLineTests {
    @Test("synth writes the same bytes for the same seed, and thumbnail reads them")
    func synthThenThumbnail() async throws {
        let first = BenchProcess.temporaryFile("a.webp"), second = BenchProcess.temporaryFile("b.webp")
        let thumbnail = BenchProcess.temporaryFile("t.jpg")
        defer { for file in [first, second, thumbnail] { try? FileManager.default.removeItem(at: file) } }
        for file in [first, second] {
            let output = try await BenchProcess.run(
                ["synth", "--seed", "5", "--width", "800", "--height", "600", "--format", "webp", "-o", file.path])
            #expect(output.status == 0, "\(output.stderr)")
        }
        #expect(try Data(contentsOf: first) == Data(contentsOf: second))

        let output = try await BenchProcess.run(["thumbnail", first.path, "--width", "200", "-o", thumbnail.path])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("800×600 → 200×150"))
        #expect(try Data(contentsOf: thumbnail).starts(with: [0xFF, 0xD8, 0xFF]))
    }

    @Test("a bad file gets a clear error and a failing exit status, not a crash")
    func badInput() async throws {
        let html = BenchProcess.temporaryFile("page.jpg")
        defer { try? FileManager.default.removeItem(at: html) }
        try Data("<html><body>404</body></html>".utf8).write(to: html)
        let output = try await BenchProcess.run(["thumbnail", html.path])
        #expect(output.status == 1)
        #expect(output.stderr.contains("not an image: the body is an HTML or XML document"))
    }

    @Test("thumbnails makes the sample set and prints its table")
    func defaultRun() async throws {
        let output = try await BenchProcess.run(["thumbnails", "--repetitions", "1"])
        #expect(output.status == 0, "\(output.stderr)")
        for column in ["image", "shrink-on-load ms", "full-decode ms", "speed-up"] {
            #expect(output.stdout.contains(column))
        }
        #expect(output.stdout.contains("photo original 6000×4000"))
        #expect(output.stdout.contains("400×267"))
    }
}

/// What `serve --json` prints.
private struct ServeListening: Decodable { let baseURL: String }
private struct ServeStopped: Decodable { let statistics: OriginServer.Statistics }

@Suite("imagecache-bench serve")
struct ServeCommandTests {
    @Test("starts the origin, answers an image and a page, and stops with what it served when its input closes")
    func serve() async throws {
        let running = try BenchProcess.Running(["serve", "--stop-on-eof", "--json"])
        let listening = try JSONDecoder().decode(
            ServeListening.self, from: Data(try #require(try await running.nextLine()).utf8))
        #expect(listening.baseURL.hasPrefix("http://127.0.0.1:"))
        let image = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: listening.baseURL + "/images/7?w=320&h=200&fmt=png"), timeout: .seconds(30))
        #expect(image.status == .ok)
        let body = try await image.body.collect(upTo: 1 << 20)
        #expect(try Thumbnailer().header(of: Data(buffer: body)).width == 320)
        let page = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: listening.baseURL + "/photos?page=1&per_page=15"), timeout: .seconds(30))
        #expect(page.status == .ok)
        _ = try await page.body.collect(upTo: 1 << 20)
        try running.closeInput()
        let stopped = try JSONDecoder().decode(
            ServeStopped.self, from: Data(try #require(try await running.nextLine()).utf8))
        #expect(stopped.statistics.requests == 1)  // images; pages are not counted
        #expect(stopped.statistics.imagesSynthesised == 1)
        #expect(stopped.statistics.bytesSent == body.readableBytes)
        #expect(try await running.exitStatus() == 0)
    }
}
