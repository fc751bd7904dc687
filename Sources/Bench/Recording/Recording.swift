import AsyncHTTPClient
import Foundation
import OriginServer
import Workloads

/// `record`: an app model against a fresh loopback origin, written as a trace.
public enum Recording {
    /// Where the origin keeps synthesised images between runs (recording again is then quick).
    public static var defaultStore: String {
        let base = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"]
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache").path
        return base + "/imagecache-bench/origin-store"
    }

    public static func run(
        _ apps: [AppName], sessions: Int, seed: UInt64, output: String, generator: String,
        store: String = defaultStore, catalogue: URLCatalogue? = nil, sharedFileNameShare: Double = 0, progress: ((Int) -> Void)? = nil
    ) async throws -> Recorder.Summary {
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        let origin = try await OriginServer.start(.init(
            storeDirectory: store, storeByteLimit: 8 << 30, seed: seed, imageURLs: catalogue?.originImageURLs ?? [:],
            sharedFileNameShare: sharedFileNameShare))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(timeout: .init(connect: .seconds(10))))
        do {
            let summary = try await Recorder.record(
                apps, sessions: sessions, seed: seed, environment: OriginEnvironment(origin: origin, client: client),
                to: output, generator: generator, progress: progress)
            try await client.shutdown()
            await origin.stop()
            return summary
        } catch {
            try? await client.shutdown()
            await origin.stop()
            throw error
        }
    }
}
