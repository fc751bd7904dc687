import Foundation
import Hummingbird
import ImagePipeline
import NIOCore
import NIOPosix
import ImageSynthesis

/// The handlers behind `OriginServer`, and what they counted.
final class OriginRoutes: Sendable {
    let configuration: OriginServer.Configuration
    let store: ImageStore
    let catalog = OriginCatalog()
    let counters = Locked(OriginServer.Statistics())
    private let sequence = Locked<UInt64>(0)
    private let services: ServiceCatalogs
    /// With an emulated network: its downlink and the connections it has seen.
    let downlink: PacedDownlink?

    init(configuration: OriginServer.Configuration, store: ImageStore) {
        self.configuration = configuration
        self.store = store
        downlink = configuration.link.map(PacedDownlink.init)
        services = ServiceCatalogs(
            seed: configuration.seed, catalog: catalog, news: NewsImageModel(sharedFileNameShare: configuration.sharedFileNameShare),
            realURLs: configuration.imageURLs)
    }

    func install(on router: Router<OriginRequestContext>) {
        router.get("/images/:id") { request, context in try await self.image(request, context) }
        router.get("/proxy") { request, context in try await self.proxy(request, context) }
        router.get("/health") { _, _ in "ok" }
        // The five apps' services, paged as the real ones are.
        router.get("/v2/top-headlines") { request, _ in
            let query = request.uri.queryParameters
            return self.json(self.services.news(
                endpoint: "top-headlines", topic: "country-" + (query.get("country") ?? "us"),
                page: max(query.get("page", as: Int.self) ?? 1, 1), pageSize: min(max(query.get("pageSize", as: Int.self) ?? 20, 1), 100),
                clock: Self.clock(query)))
        }
        router.get("/v2/everything") { request, _ in
            let query = request.uri.queryParameters
            return self.json(self.services.news(
                endpoint: "everything", topic: query.get("q") ?? "",
                page: max(query.get("page", as: Int.self) ?? 1, 1), pageSize: min(max(query.get("pageSize", as: Int.self) ?? 20, 1), 100),
                clock: Self.clock(query)))
        }
        router.get("/ttb/api/ItemSearch.aspx") { request, _ in
            let query = request.uri.queryParameters
            return self.json(self.services.aladin(
                query: query.get("Query") ?? "", start: max(query.get("start", as: Int.self) ?? 1, 1),
                maxResults: min(max(query.get("MaxResults", as: Int.self) ?? 10, 1), 50)))
        }
        router.get("/photos") { request, _ in
            let query = request.uri.queryParameters
            return self.json(self.services.unsplash(
                page: max(query.get("page", as: Int.self) ?? 1, 1), perPage: min(max(query.get("per_page", as: Int.self) ?? 10, 1), 30),
                clock: Self.clock(query)))
        }
        router.get("/api/products") { request, _ in
            let query = request.uri.queryParameters
            return self.json(self.services.market(
                page: max(query.get("page_no", as: Int.self) ?? 1, 1),
                itemsPerPage: min(max(query.get("items_per_page", as: Int.self) ?? 20, 1), 100),
                search: query.get("search_value"), clock: Self.clock(query)))
        }
        router.get("/api/banners") { _, _ in self.json(self.services.banners()) }
        router.patch("/api/products/:id") { _, context in
            guard let id = context.parameters.get("id", as: Int.self), self.services.editProduct(id) else {
                return Response(status: .notFound)
            }
            return Response(status: .ok)
        }
        router.delete("/api/products/:id") { _, context in
            guard let id = context.parameters.get("id", as: Int.self) else { return Response(status: .badRequest) }
            self.services.deleteProduct(id)
            return Response(status: .noContent)
        }
    }

    /// Minutes since the workload's epoch (`clock=`): feeds move on as it grows.
    private static func clock(_ query: Parameters) -> Int {
        max(query.get("clock", as: Int.self) ?? 0, 0)
    }

    /// Serves the image the catalog says an original URL shows.
    private func proxy(_ request: Request, _ context: OriginRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        guard let original = query.get("u"), let descriptor = catalog.descriptor(for: original) else {
            counters.withLock { $0.requests += 1 }
            return Response(status: .notFound, body: .init(byteBuffer: ByteBuffer(string: "not in the catalog\n")))
        }
        return try await serve(
            descriptor, host: query.get("host"), fault: query.get("fault").flatMap(OriginFault.init(rawValue:)), connection: context.connection)
    }

    private func json(_ object: Any) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    private func image(_ request: Request, _ context: OriginRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        guard let id = context.parameters.get("id", as: UInt64.self),
              let width = query.get("w", as: Int.self), let height = query.get("h", as: Int.self),
              (1...20_000).contains(width), (1...20_000).contains(height),
              let format = query.get("fmt").flatMap(ImageFormat.init(rawValue:)) else {
            counters.withLock { $0.requests += 1 }
            return Response(status: .badRequest, body: .init(byteBuffer: ByteBuffer(string: "bad image request\n")))
        }
        let descriptor = ImageDescriptor(contentID: id, width: width, height: height, format: format, quality: query.get("q", as: Int.self) ?? 82)
        return try await serve(
            descriptor, host: query.get("host"), fault: query.get("fault").flatMap(OriginFault.init(rawValue:)), connection: context.connection,
            recordedBytes: query.get("bytes", as: Int.self).map { min(max($0, 0), 64 << 20) })
    }

    /// The image response for a descriptor, after the host's latency (and the emulated link's
    /// round trips), with an optional fault; its body paced by the emulated downlink, and padded
    /// to `recordedBytes` where given (`RecordedSize`).
    private func serve(
        _ descriptor: ImageDescriptor, host: String?, fault: OriginFault?, connection: Int, recordedBytes: Int? = nil
    ) async throws -> Response {
        let number = sequence.withLock { $0 += 1; return $0 }
        counters.withLock { $0.requests += 1 }
        var delay = configuration.latency.delay(host: host ?? "", sequence: number, seed: configuration.seed)
        if let downlink { delay += downlink.firstByteDelay(connection: connection, host: host) }
        if delay > .zero { try await Task.sleep(for: delay) }
        let paced = downlink.map { Pacing(downlink: $0, connection: connection) }

        if let fault {
            counters.withLock { $0.faultsServed += 1 }
            if let response = try await faultResponse(fault, descriptor, paced) { return response }
        }
        var (data, made) = try await storedImage(descriptor)
        if made { counters.withLock { $0.imagesSynthesised += 1 } }
        if let recordedBytes { data = RecordedSize.padded(data, to: recordedBytes, format: descriptor.format) }
        return imageResponse(data, descriptor, contentType: descriptor.contentType, paced)
    }

    /// A body's way through the emulated downlink, on its connection.
    struct Pacing {
        let downlink: PacedDownlink
        let connection: Int
    }

    /// The response for a fault, or nil when the fault shapes the image response itself.
    private func faultResponse(_ fault: OriginFault, _ descriptor: ImageDescriptor, _ paced: Pacing?) async throws -> Response? {
        func text(_ status: HTTPResponse.Status, _ body: String, _ type: String = "text/plain") -> Response {
            Response(status: status, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        switch fault {
        case .notFound: return text(.notFound, "not found\n")
        case .serverError: return text(.internalServerError, "internal error\n")
        case .unavailable: return text(.serviceUnavailable, "try later\n")
        case .htmlBody:
            return text(.ok, "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>", "text/html; charset=utf-8")
        case .wrongContentType:
            return imageResponse(try await storedImage(descriptor).0, descriptor, contentType: "text/plain", paced)
        case .truncated:
            let data = try await storedImage(descriptor).0
            return streamed(data, declaredLength: data.count, cutAt: data.count / 2, pause: nil, paced: paced)
        case .reset:
            let data = try await storedImage(descriptor).0
            return streamed(data, declaredLength: nil, cutAt: data.count / 3, pause: nil, paced: paced)
        case .slowDrip:
            let data = try await storedImage(descriptor).0
            return streamed(data, declaredLength: data.count, cutAt: nil, pause: .milliseconds(20), paced: paced)
        case .stall:
            try await Task.sleep(for: configuration.stall)
            return text(.ok, "too late\n")
        case .bomb:
            return Response(status: .ok, headers: [.contentType: "image/png"], body: .init(byteBuffer: ByteBuffer(bytes: HostileImages.pngHeader(claimingWidth: 50_000, height: 50_000))))
        }
    }

    /// Reading or making an image runs on NIO's blocking-work pool: synthesis takes up to
    /// hundreds of milliseconds, which on Swift's cooperative threads would hold up every
    /// other task in the process (the fetcher's timers and the tests' own) until it ends.
    private func storedImage(_ descriptor: ImageDescriptor) async throws -> (Data, made: Bool) {
        try await NIOThreadPool.singleton.runIfActive { [store] in try store.image(descriptor) }
    }

    private func imageResponse(_ data: Data, _ descriptor: ImageDescriptor, contentType: String, _ paced: Pacing?) -> Response {
        var headers: HTTPFields = [.contentType: contentType, .cacheControl: "public, max-age=31536000"]
        headers[.eTag] = "\"\(descriptor.storeKey)\""
        return streamed(data, declaredLength: data.count, cutAt: nil, pause: nil, paced: paced, headers: headers)
    }

    /// Writes the body in 16 KB pieces (the emulated downlink's own, when paced), counting
    /// bytes and noticing a client that leaves early. `cutAt` closes the connection after that
    /// many bytes.
    private func streamed(
        _ data: Data, declaredLength: Int?, cutAt: Int?, pause: Duration?, paced: Pacing?,
        headers: HTTPFields = [.contentType: "image/jpeg"]
    ) -> Response {
        let body = ResponseBody(contentLength: declaredLength) { writer in
            let end = cutAt ?? data.count
            var offset = 0
            var previousEnd: ContinuousClock.Instant?
            defer { paced.map { $0.downlink.finished(connection: $0.connection) } }
            do {
                while offset < end {
                    let piece = min(pause == nil ? paced?.downlink.link.pieceBytes ?? 16_384 : 1_024, end - offset)
                    try await paced?.downlink.transmit(piece, previousEnd: &previousEnd)
                    try await writer.write(ByteBuffer(bytes: data[data.startIndex + offset ..< data.startIndex + offset + piece]))
                    offset += piece
                    self.counters.withLock { $0.bytesSent += piece }
                    if let pause { try await Task.sleep(for: pause) }
                }
            } catch {
                self.counters.withLock { $0.abortedByClient += 1 }
                throw error
            }
            if cutAt != nil { throw OriginCut() }  // closes the connection mid-body
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}

/// Thrown to close a connection mid-body on purpose.
struct OriginCut: Error {}

