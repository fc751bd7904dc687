import Foundation

/// API pages as the origin serves them, in about the numbers of the real
/// response files (240 articles, 50 books, 75 photos, 180 products), so the
/// model's URL shapes can be measured exactly as the real responses are.
public struct ResponseSample: Sendable {
    /// The service's name (newsapi, aladin, unsplash, openmarket), a file-like name and the JSON.
    public var pages: [(service: String, name: String, json: Data)] = []

    public init(seed: UInt64 = 1, sharedFileNameShare: Double = 0) {
        let services = ServiceCatalogs(seed: seed, catalog: OriginCatalog(), news: NewsImageModel(sharedFileNameShare: sharedFileNameShare))
        func add(_ service: String, _ name: String, _ object: Any) {
            pages.append((service, name, (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()))
        }
        for topic in ["apple", "olympics", "election", "climate", "markets"] {
            for page in 1...2 { add("newsapi", "everything-\(topic)-\(page).json", services.news(endpoint: "everything", topic: topic, page: page, pageSize: 20, clock: 0)) }
        }
        for country in ["us", "kr"] { add("newsapi", "top-headlines-\(country).json", services.news(endpoint: "top-headlines", topic: country, page: 1, pageSize: 20, clock: 0)) }
        for query in ["swift", "novel", "history", "poetry", "cooking"] { add("aladin", "search-\(query).json", services.aladin(query: query, start: 1, maxResults: 10)) }
        for page in 1...5 { add("unsplash", "photos-\(page).json", services.unsplash(page: page, perPage: 15, clock: 0)) }
        for page in 1...9 { add("openmarket", "products-\(page).json", services.market(page: page, itemsPerPage: 20, search: nil, clock: 0)) }
    }
}
