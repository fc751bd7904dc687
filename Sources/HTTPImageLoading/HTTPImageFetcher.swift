import AsyncHTTPClient
import ImagePipeline
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Synchronization

/// Fetches images over HTTP with AsyncHTTPClient: a bounded connection pool
/// per host, a timeout for the response head and one between body reads, a
/// maximum body size, status and content-type checks. Cancelling the calling
/// task cancels the request and closes its connection.
public final class HTTPImageFetcher: ImageFetcher {
    public struct Configuration: Sendable {
        public var connectionsPerHost: Int
        /// Bounds both opening a connection and, in AsyncHTTPClient, waiting for
        /// one of the host's pooled connections to come free: no shorter than
        /// `requestTimeout`, so that one bounds a request's wait for its response.
        public var connectTimeout: Duration
        /// Until the response head arrives, from the fetch (`RequestTimeout`).
        public var requestTimeout: Duration
        /// Longest silence between body bytes.
        public var readTimeout: Duration
        public var maxBodyBytes: Int
        /// Accept bodies labelled `application/octet-stream` (some CDNs do).
        public var acceptsOctetStream: Bool

        public init(
            connectionsPerHost: Int = 6, connectTimeout: Duration = RequestTimeout.standard, requestTimeout: Duration = RequestTimeout.standard,
            readTimeout: Duration = .seconds(5), maxBodyBytes: Int = 32 << 20, acceptsOctetStream: Bool = true
        ) {
            self.connectionsPerHost = connectionsPerHost
            self.connectTimeout = connectTimeout
            self.requestTimeout = requestTimeout
            self.readTimeout = readTimeout
            self.maxBodyBytes = maxBodyBytes
            self.acceptsOctetStream = acceptsOctetStream
        }
    }

    /// What the fetcher did.
    public struct Statistics: Sendable, Equatable {
        public var requests = 0
        public var succeeded = 0
        public var failed = 0
        public var cancelled = 0
        public var bytesReceived = 0
    }

    public let configuration: Configuration
    private let client: HTTPClient
    private let counters = Locked(Statistics())
    private let isShutDown = Atomic(false)

    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
        var clientConfiguration = HTTPClient.Configuration(
            timeout: .init(connect: .init(configuration.connectTimeout), read: .init(configuration.readTimeout)),
            connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: configuration.connectionsPerHost),
            decompression: .disabled)
        clientConfiguration.httpVersion = .http1Only
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: clientConfiguration)
    }

    /// Closes the connection pool and waits for it. Dropping the fetcher
    /// without this closes the pool in the background instead.
    public func shutdown() async throws {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try await client.shutdown()
    }

    deinit {
        // AsyncHTTPClient traps when a client is released without a shutdown;
        // the task keeps the client alive until its shutdown completes.
        guard !isShutDown.load(ordering: .acquiring) else { return }
        let client = self.client
        Task { try? await client.shutdown() }
    }

    public var statistics: Statistics { counters.withLock { $0 } }

    public func fetch(_ url: String) async throws -> FetchedImage {
        counters.withLock { $0.requests += 1 }
        let start = ContinuousClock.now
        do {
            let image = try await perform(url, start: start)
            counters.withLock {
                $0.succeeded += 1
                $0.bytesReceived += image.data.count
            }
            return image
        } catch {
            let mapped = Self.map(error)
            counters.withLock { if mapped is CancellationError { $0.cancelled += 1 } else { $0.failed += 1 } }
            throw mapped
        }
    }

    private func perform(_ url: String, start: ContinuousClock.Instant) async throws -> FetchedImage {
        let request = HTTPClientRequest(url: url)
        let response = try await client.execute(request, timeout: .init(configuration.requestTimeout))
        let headDuration = ContinuousClock.now - start
        guard (200..<300).contains(Int(response.status.code)) else { throw FetchError.status(Int(response.status.code)) }
        let contentType = response.headers.first(name: "content-type")
        let type = contentType?.lowercased() ?? ""
        guard type.hasPrefix("image/") || (configuration.acceptsOctetStream && type.hasPrefix("application/octet-stream")) else {
            throw FetchError.contentType(contentType ?? "none")
        }
        let declared = response.headers.first(name: "content-length").flatMap(Int.init)
        if let declared, declared > configuration.maxBodyBytes { throw FetchError.bodyTooLarge(limit: configuration.maxBodyBytes) }
        var body = ByteBuffer()
        do {
            body = try await response.body.collect(upTo: configuration.maxBodyBytes)
        } catch is NIOTooManyBytesError {
            throw FetchError.bodyTooLarge(limit: configuration.maxBodyBytes)
        } catch let error as HTTPClientError where error == .remoteConnectionClosed {
            throw FetchError.truncated(received: body.readableBytes, expected: declared)
        }
        if let declared, body.readableBytes < declared {
            throw FetchError.truncated(received: body.readableBytes, expected: declared)
        }
        let data = body.readData(length: body.readableBytes) ?? Data()
        return FetchedImage(data: data, contentType: contentType, headDuration: headDuration, totalDuration: ContinuousClock.now - start)
    }

    /// AsyncHTTPClient's and NIO's errors as `FetchError`s (or `CancellationError`).
    private static func map(_ error: any Error) -> any Error {
        if error is FetchError || error is CancellationError { return error }
        if let client = error as? HTTPClientError {
            if client == .cancelled { return CancellationError() }
            if client == .getConnectionFromPoolTimeout { return FetchError.noConnectionAvailable }
            if [.deadlineExceeded, .readTimeout, .connectTimeout].contains(client) { return FetchError.timedOut }
            if [.invalidURL, .emptyHost, .emptyScheme].contains(client) { return FetchError.invalidURL("\(client)") }
            if client == .remoteConnectionClosed { return FetchError.truncated(received: 0, expected: nil) }
            return FetchError.connection("\(client)")
        }
        // The connection closed inside a body (declared length or chunked): a cut-off download.
        if let parser = error as? HTTPParserError, parser == .invalidEOFState {
            return FetchError.truncated(received: 0, expected: nil)
        }
        if Task.isCancelled { return CancellationError() }
        return FetchError.connection(String(describing: error))
    }
}
