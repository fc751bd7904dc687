import Foundation
import Hummingbird
import ImagePipeline
import Logging
import NIOCore
import ServiceLifecycle
import ImageSynthesis

/// A real HTTP origin on loopback for tests and live replay: it serves the
/// images a workload says exist (synthesised deterministically with libvips,
/// each made once and kept in a bounded on-disk store), with a latency model
/// per host and faults on demand.
///
/// Image URLs look like `/images/<content id>?w=&h=&fmt=&q=&host=&fault=&u=<original URL>`,
/// or `/proxy?u=<original URL>` for URLs the API pages handed out (the
/// catalog knows what each shows): a fetcher maps an app's original URL onto
/// loopback, so cache keys are still computed on the original. API pages:
/// `/v2/top-headlines`, `/v2/everything` (NewsAPI), `/ttb/api/ItemSearch.aspx`
/// (Aladin), `/photos` (Unsplash), `/api/products` (open market).
public final class OriginServer: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        /// Where synthesised images are kept; nil for a directory of the server's own,
        /// removed when it stops.
        public var storeDirectory: String?
        public var storeByteLimit: Int
        public var latency: LatencyModel
        public var seed: UInt64
        /// How long `.stall` waits before answering.
        public var stall: Duration
        public var logLevel: Logger.Level
        /// Real image URLs by service (newsapi, aladin, unsplash, openmarket), from imported
        /// API responses, for the pages to hand out instead of generated ones.
        public var imageURLs: [String: [String]]
        /// Share of news images named `840_560.jpeg` in their own folders (seed 000's Korean
        /// outlets); the real responses show none.
        public var sharedFileNameShare: Double
        /// A phone's network, emulated by pacing the responses; nil answers at loopback speed.
        public var link: EmulatedLink?
        /// Ports the server listens on (from `port` up, or each the system's choice at 0): a
        /// client keeps a pool of connections per port, so a replay gives each of its hosts one.
        public var listeners: Int

        public init(
            host: String = "127.0.0.1", port: Int = 0,
            storeDirectory: String? = nil,
            storeByteLimit: Int = 512 << 20, latency: LatencyModel = .none, seed: UInt64 = 1,
            stall: Duration = .seconds(30), logLevel: Logger.Level = .error, imageURLs: [String: [String]] = [:],
            sharedFileNameShare: Double = 0, link: EmulatedLink? = nil, listeners: Int = 1
        ) {
            self.host = host
            self.port = port
            self.storeDirectory = storeDirectory
            self.storeByteLimit = storeByteLimit
            self.latency = latency
            self.seed = seed
            self.stall = stall
            self.logLevel = logLevel
            self.imageURLs = imageURLs
            self.sharedFileNameShare = sharedFileNameShare
            self.link = link
            self.listeners = max(listeners, 1)
        }
    }

    /// What the server saw.
    public struct Statistics: Sendable, Equatable, Codable {
        public var requests = 0
        public var imagesSynthesised = 0
        public var bytesSent = 0
        /// Responses whose client went away before the body was complete.
        public var abortedByClient = 0
        public var faultsServed = 0
    }

    /// The first listener's URL.
    public var baseURL: String { baseURLs[0] }
    /// Each listener's URL.
    public let baseURLs: [String]
    private let group: ServiceGroup
    private let running: Task<Void, any Error>
    /// Where this server keeps its synthesised images.
    public let storeDirectory: String
    private let routes: OriginRoutes
    /// Whether the server made its store directory, and so removes it when it stops.
    private let ownsStore: Bool

    private init(
        baseURLs: [String], group: ServiceGroup, running: Task<Void, any Error>, routes: OriginRoutes,
        storeDirectory: String, ownsStore: Bool
    ) {
        self.baseURLs = baseURLs
        self.group = group
        self.running = running
        self.routes = routes
        self.storeDirectory = storeDirectory
        self.ownsStore = ownsStore
    }

    /// Starts listening; returns once the port is bound.
    public static func start(_ configuration: Configuration = Configuration()) async throws -> OriginServer {
        var logger = Logger(label: "OriginServer")
        logger.logLevel = configuration.logLevel
        let ownsStore = configuration.storeDirectory == nil
        let storeDirectory = configuration.storeDirectory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("imagecache-bench-origin-\(UUID().uuidString)").path
        let store = try ImageStore(directory: storeDirectory, byteLimit: configuration.storeByteLimit)
        let routes = OriginRoutes(configuration: configuration, store: store)
        let router = Router(context: OriginRequestContext.self)
        routes.install(on: router)
        let (bound, boundContinuation) = AsyncStream.makeStream(of: (listener: Int, port: Int).self)
        let apps = (0..<configuration.listeners).map { listener in
            Application(
                router: router,
                configuration: .init(
                    address: .hostname(configuration.host, port: configuration.port == 0 ? 0 : configuration.port + listener),
                    serverName: "ImageCacheBench-origin"),
                onServerRunning: { channel in boundContinuation.yield((listener, channel.localAddress?.port ?? 0)) },
                logger: logger
            )
        }
        let group = ServiceGroup(configuration: .init(services: apps, logger: logger))
        // A server that cannot bind (the port in use) ends the group: the stream ends with it,
        // so the caller hears why instead of waiting for a port that never comes.
        let running = Task {
            defer { boundContinuation.finish() }
            try await group.run()
        }
        var ports = [Int](repeating: 0, count: configuration.listeners)
        for await (listener, port) in bound {
            ports[listener] = port
            if !ports.contains(0) { break }
        }
        guard !ports.contains(0) else {
            running.cancel()
            let failure = await running.result
            if ownsStore { try? FileManager.default.removeItem(atPath: storeDirectory) }
            throw OriginServerError.cannotListen(
                address: "\(configuration.host):\(configuration.port)", reason: failure.failureReason)
        }
        return OriginServer(
            baseURLs: ports.map { "http://\(configuration.host):\($0)" }, group: group, running: running, routes: routes,
            storeDirectory: storeDirectory, ownsStore: ownsStore)
    }

    /// Stops accepting, gives open responses two seconds to finish (a stalled
    /// one would never), cancels the rest, and waits until the server has stopped;
    /// then removes the store directory if the server made it.
    public func stop() async {
        await group.triggerGracefulShutdown()
        let running = self.running
        let deadline = Task {
            try await Task.sleep(for: .seconds(2))
            running.cancel()
        }
        _ = try? await running.value
        deadline.cancel()
        if ownsStore { try? FileManager.default.removeItem(atPath: storeDirectory) }
    }

    public var statistics: Statistics { routes.counters.withLock { $0 } }

    /// On an emulated network, the client's process ended: its next request on every connection
    /// pays the handshakes again (`EmulatedLink`).
    public func clientProcessEnded() { routes.downlink?.forgetConnections() }

    /// Makes every image in `images` that the store lacks, one per core at a time, so that a
    /// replay's download times are not the time to synthesise a picture. Calls `progress`
    /// with the number done so far.
    public func prepare(_ images: [ImageDescriptor], progress: @Sendable (Int) -> Void = { _ in }) async throws {
        let store = routes.store
        var seen = Set<ImageDescriptor>()
        let unique = images.filter { seen.insert($0).inserted }
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0, done = 0
            func startNext() {
                let image = unique[next]
                next += 1
                group.addTask { _ = try store.image(image) }
            }
            while next < min(unique.count, ProcessInfo.processInfo.activeProcessorCount) { startNext() }
            while try await group.next() != nil {
                done += 1
                progress(done)
                if next < unique.count { startNext() }
            }
        }
    }

    /// The image URLs the API pages handed out, and what each shows.
    public var catalog: OriginCatalog { routes.catalog }

    /// The loopback URL that serves what the catalog says `original` shows.
    public func proxyURL(for original: String, host: String? = nil, fault: OriginFault? = nil) -> String {
        var url = "\(baseURL)/proxy?u=" + original.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        if let host { url += "&host=" + host.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
        if let fault { url += "&fault=\(fault.rawValue)" }
        return url
    }

    /// The loopback URL serving `image` (on `listener`, of `Configuration.listeners`), carrying
    /// the original URL for the logs; `bytes`: padded to the size its recording downloaded.
    public func url(
        for image: ImageDescriptor, originalURL: String? = nil, host: String? = nil, fault: OriginFault? = nil, listener: Int = 0,
        bytes: Int? = nil
    ) -> String {
        var query = "w=\(image.width)&h=\(image.height)&fmt=\(image.format.rawValue)&q=\(image.quality)"
        if let bytes { query += "&bytes=\(bytes)" }
        if let host { query += "&host=" + host.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
        if let fault { query += "&fault=\(fault.rawValue)" }
        if let originalURL { query += "&u=" + originalURL.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
        return "\(baseURLs[listener % baseURLs.count])/images/\(image.contentID)?\(query)"
    }
}

public enum OriginServerError: Error, CustomStringConvertible {
    /// Nothing listens: the address is in use, say, or not this machine's.
    case cannotListen(address: String, reason: String)

    public var description: String {
        switch self {
        case .cannotListen(let address, let reason): "the origin cannot listen on \(address): \(reason)"
        }
    }
}

extension Result<Void, any Error> {
    /// Why the server's group ended, in the system's words where the system gave them.
    fileprivate var failureReason: String {
        guard case .failure(let error) = self else { return "it stopped before it listened" }
        if let io = error as? IOError { return FileSystemError.reason(io.errnoCode) }
        return String(describing: error)
    }
}
