import Foundation

/// The image URLs of real API responses, by service: the population of URL
/// shapes (hosts, queries, repeats) a model or a key-strategy study draws from.
public struct URLCatalogue: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        public var service: Service
        /// The response file it came from.
        public var file: String
        public var item: String
        public var image: CataloguedImage
    }

    public var entries: [Entry] = []

    public init() {}

    /// Adds every image URL of one response; the service is detected from the shape unless given.
    public mutating func add(file path: String, service: Service? = nil) throws(ImportError) {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .unreadable(file: path, reason: "cannot read (\(error.localizedDescription))")
        }
        let root = try JSONNode.parse(data, file: path)
        let kind = if let service { service } else { try ServiceResponses.detect(root) }
        let page = try ServiceResponses.parse(root, service: kind)
        let name = URL(fileURLWithPath: path).lastPathComponent
        for item in page.items {
            for image in item.images { entries.append(Entry(service: kind, file: name, item: item.id, image: image)) }
        }
    }

    public func urls(for service: Service) -> [String] {
        entries.filter { $0.service == service }.map(\.image.url)
    }

    /// The URLs an origin's pages can hand out in place of generated ones, by service name:
    /// news images, Aladin list covers, Unsplash originals and market thumbnails, each once.
    public var originImageURLs: [String: [String]] {
        let roles: [Service: Set<String>] = [
            .newsapi: ["urlToImage"], .aladin: ["cover"], .unsplash: ["urls.raw"], .openmarket: ["thumbnail"],
        ]
        var urls: [String: [String]] = [:]
        var seen = Set<String>()
        for entry in entries where roles[entry.service]?.contains(entry.image.role) == true && seen.insert(entry.image.url).inserted {
            urls[entry.service.rawValue, default: []].append(entry.image.url)
        }
        return urls
    }

    /// Reads a catalogue written by `imagecache-bench import api`.
    public static func load(_ path: String) throws(ImportError) -> URLCatalogue {
        do {
            return try JSONDecoder().decode(URLCatalogue.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw .unreadable(file: path, reason: "not a URL catalogue (\(error.localizedDescription)); make one with `imagecache-bench import api`")
        }
    }
}
