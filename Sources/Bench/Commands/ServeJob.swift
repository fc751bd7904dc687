import Foundation
import OriginServer

/// `serve`: the loopback origin on its own, for scripts and people to point a client at.
public struct ServeJob: Sendable {
    public var port = 0
    /// Median response latency for every host (0: none), and its log-normal spread.
    public var latencyMilliseconds = 0.0
    public var latencySigma = 0.5
    /// Stop after this many seconds; nil runs until interrupted.
    public var seconds: Double?
    /// Stop when standard input closes.
    public var stopsOnEOF = false
    /// JSON lines for scripts instead of words.
    public var json = false

    public init() {}

    /// What `json` prints, one line each.
    struct Listening: Codable { let baseURL: String }
    struct Stopped: Codable { let statistics: OriginServer.Statistics }

    public func run() async throws {
        let latency = latencyMilliseconds > 0
            ? LatencyModel(otherHosts: .init(medianMilliseconds: latencyMilliseconds, sigma: latencySigma)) : .none
        let origin = try await OriginServer.start(.init(port: port, latency: latency))
        if json {
            try printLine(Listening(baseURL: origin.baseURL))
        } else {
            printUsage(origin)
        }
        if stopsOnEOF {
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
