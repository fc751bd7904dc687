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
    /// Items (articles, books, photos, products) read per service, and how many of them named no image.
    public var items: [Service: Int] = [:]
    public var itemsWithoutImage: [Service: Int] = [:]

    public init() {}

    private enum CodingKeys: String, CodingKey { case entries, items, itemsWithoutImage }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        entries = try container.decode([Entry].self, forKey: .entries)
        // Catalogues written before the item counts have none.
        items = try container.decodeIfPresent([Service: Int].self, forKey: .items) ?? [:]
        itemsWithoutImage = try container.decodeIfPresent([Service: Int].self, forKey: .itemsWithoutImage) ?? [:]
    }

    /// Adds every image URL of one response; the service is detected from the shape unless given.
    public mutating func add(file path: String, service: Service? = nil) throws(ImportError) {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .unreadable(file: path, reason: "cannot read (\(PlainFailure.clause(error)))")
        }
        try add(data: data, file: path, service: service)
    }

    /// Adds every image URL of one response held in memory; `file` names it in entries and errors.
    public mutating func add(data: Data, file path: String, service: Service? = nil) throws(ImportError) {
        let root = try JSONNode.parse(data, file: path)
        let kind = if let service { service } else { try ServiceResponses.detect(root) }
        let page = try ServiceResponses.parse(root, service: kind)
        let name = URL(fileURLWithPath: path).lastPathComponent
        items[kind, default: 0] += page.items.count
        itemsWithoutImage[kind, default: 0] += page.items.count { $0.images.isEmpty }
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
            throw .unreadable(file: path, reason: "not a URL catalogue (\(PlainFailure.clause(error))); make one with `imagecache-bench import api`")
        }
    }
}
