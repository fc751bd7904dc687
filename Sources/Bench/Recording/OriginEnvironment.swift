import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import OriginServer
import Workloads

/// An app model's world backed by a loopback `OriginServer`: API pages over
/// HTTP, and each image's ground truth from fetching it through `/proxy`
/// (its bytes counted, its content, size and format from the ETag the origin sets).
public struct OriginEnvironment: AppEnvironment {
    let origin: OriginServer
    let client: HTTPClient
    /// Images fetched at once while learning a page's facts.
    let parallelFetches: Int

    public init(origin: OriginServer, client: HTTPClient, parallelFetches: Int = 4) {
        self.origin = origin
        self.client = client
        self.parallelFetches = parallelFetches
    }

    public func get(_ path: String, clock: Int) async throws -> Data {
        let url = origin.baseURL + path + (path.contains("?") ? "&" : "?") + "clock=\(clock)"
        let (status, body, _) = try await fetch(url, method: .GET)
        guard status == 200 else { throw RecordingError.badResponse(path, reason: "status \(status)") }
        return body
    }

    public func send(method: String, path: String) async throws {
        let (status, _, _) = try await fetch(origin.baseURL + path, method: HTTPMethod(rawValue: method))
        guard (200..<300).contains(status) else { throw RecordingError.badResponse("\(method) \(path)", reason: "status \(status)") }
    }

    public func facts(for urls: [String]) async throws -> [String: ImageFacts] {
        try await withThrowingTaskGroup(of: (String, ImageFacts).self) { group in
            var found: [String: ImageFacts] = [:]
            var pending = urls[...]
            func start() {
                guard let url = pending.popFirst() else { return }
                group.addTask { (url, try await fact(url)) }
            }
            for _ in 0..<parallelFetches { start() }
            while let (url, fact) = try await group.next() {
                found[url] = fact
                start()
            }
            return found
        }
    }

    private func fact(_ url: String) async throws -> ImageFacts {
        let (status, body, etag) = try await fetch(origin.proxyURL(for: url), method: .GET)
        // The ETag is the origin's store key: "<content>-<w>x<h>-<quality>.<format>".
        guard status == 200, let etag,
              let parsed = Self.parseTag(etag.trimmingCharacters(in: CharacterSet(charactersIn: "\""))) else {
            throw RecordingError.missingImage(url)
        }
        return ImageFacts(content: parsed.content, bytes: body.count, width: parsed.width, height: parsed.height, format: parsed.format)
    }

    static func parseTag(_ tag: String) -> (content: UInt64, width: Int, height: Int, format: String)? {
        let parts = tag.split(separator: "-")
        guard parts.count == 3, let content = UInt64(parts[0]) else { return nil }
        let size = parts[1].split(separator: "x"), rest = parts[2].split(separator: ".")
        guard size.count == 2, let width = Int(size[0]), let height = Int(size[1]), rest.count == 2 else { return nil }
        return (content, width, height, String(rest[1]))
    }

    private func fetch(_ url: String, method: HTTPMethod) async throws -> (Int, Data, String?) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        let response = try await client.execute(request, timeout: .seconds(120))
        let body = try await response.body.collect(upTo: 256 << 20)
        return (Int(response.status.code), Data(buffer: body), response.headers.first(name: "etag"))
    }
}
