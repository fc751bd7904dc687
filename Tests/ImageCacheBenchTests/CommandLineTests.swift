import Foundation
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

@Suite("imagecache-bench serve")
struct ServeCommandTests {
    @Test("starts the origin, answers, and stops after its time")
    func serve() async throws {
        let output = try await BenchProcess.run(["serve", "--seconds", "0.5"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("origin listening on http://127.0.0.1:"))
        #expect(output.stdout.contains("served 0 requests"))
    }
}
