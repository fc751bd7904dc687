import ArgumentParser
import Bench
import Foundation
import OriginServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the loopback origin: synthesised images, the five services' API pages, latency, faults."
    )

    @Option(parsing: .unconditional, help: "Port on 127.0.0.1 (0 picks a free one).")
    var port = 0

    @Option(name: [.customLong("latency"), .customLong("latency-ms")], parsing: .unconditional,
            help: "Median response latency in milliseconds for every host (0: none), as replay --latency.")
    var latencyMs = 0.0

    @Option(parsing: .unconditional, help: "Spread of the log-normal latency.")
    var latencySigma = 0.5

    @Option(parsing: .unconditional, help: "Stop after this many seconds (default: run until interrupted).")
    var seconds: Double?

    @Flag(help: "Stop when standard input closes: a script or test holds it open while it uses the origin.")
    var stopOnEOF = false

    @Flag(help: "JSON lines for scripts: {\"baseURL\"} once listening, {\"statistics\"} when stopped.")
    var json = false

    /// What `--json` prints, one line each.
    struct Listening: Codable { let baseURL: String }
    struct Stopped: Codable { let statistics: OriginServer.Statistics }

    func validate() throws {
        try OptionCheck.count(port, "--port", atLeast: 0, atMost: 65_535)
        try OptionCheck.number(latencyMs, "--latency", in: 0...60_000, "a median in milliseconds, 0 to 60000")
        try OptionCheck.number(latencySigma, "--latency-sigma", in: 0...5, "a log-normal spread, 0 to 5")
        if let seconds { try OptionCheck.number(seconds, "--seconds", in: 0...(365 * 86_400), "seconds, 0 to a year") }
    }

    func run() async throws {
        let latency = latencyMs > 0
            ? LatencyModel(otherHosts: .init(medianMilliseconds: latencyMs, sigma: latencySigma)) : .none
        let origin = try await OriginServer.start(.init(port: port, latency: latency))
        if json {
            try printLine(Listening(baseURL: origin.baseURL))
        } else {
            printUsage(origin)
        }
        if stopOnEOF {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                Thread {
                    while !FileHandle.standardInput.availableData.isEmpty {}
                    done.resume()
                }.start()
            }
        } else if let seconds {
            try await Task.sleep(for: .seconds(seconds))
        } else {
            while !Task.isCancelled { try await Task.sleep(for: .seconds(3600)) }
        }
        let statistics = origin.statistics
        await origin.stop()
        if json {
            try printLine(Stopped(statistics: statistics))
        } else {
            print("served \(statistics.requests) requests, \(statistics.bytesSent) bytes, synthesised \(statistics.imagesSynthesised) images")
        }
    }

    private func printLine(_ value: some Encodable) throws {
        print(String(decoding: try ResultsJSON.encoder(lines: true).encode(value), as: UTF8.self))
        fflush(nil)  // all streams: a script reads the line while we run
    }

    private func printUsage(_ origin: OriginServer) {
        print("""
            origin listening on \(origin.baseURL)
              images   \(origin.baseURL)/images/<content id>?w=1200&h=630&fmt=jpeg[&fault=<\(OriginFault.allCases.map(\.rawValue).joined(separator: "|"))>]
              proxy    \(origin.baseURL)/proxy?u=<an image URL an API page returned>
              NewsAPI  \(origin.baseURL)/v2/top-headlines?country=kr&page=1&pageSize=20   /v2/everything?q=apple
              Aladin   \(origin.baseURL)/ttb/api/ItemSearch.aspx?Query=swift&start=1&MaxResults=10
              Unsplash \(origin.baseURL)/photos?page=1&per_page=15
              market   \(origin.baseURL)/api/products?page_no=1&items_per_page=20
            """)
        fflush(nil)  // all streams: a script reads the line while we run
    }
}
