import Foundation

/// ArticleProject (NewsAPI search): a headline list and a search list, 20
/// articles a page, infinite scroll, and pull to refresh that also fires page 2.
public struct ArticleProjectModel: AppModel {
    public let name = "ArticleProject"
    public let modelVersion = "2"
    public let behaviour = UserBehaviour.scroller
    static let host = "newsapi.org"

    public init() {}

    public func run(_ session: UserSession) async throws {
        let feed = Feed(layout: .list(rowHeight: 112, imageWidth: 120, imageHeight: 80), width: session.screenWidth)
        try await session.launches { _, until in
            var list = NewsList(path: "/v2/top-headlines?country=kr")
            try await list.load(page: 1, into: feed, session: session, replacing: true)
            while session.time < until {
                try session.tick()
                switch session.random.weighted([8, 0.5, 0.7, 0.3, 0.8]) {
                case 0:
                    try await session.browse(feed) { try await list.loadNext(into: feed, session: session) }
                case 1:
                    // Pull to refresh: page 1 again, and (the app's bug) page 2 right after.
                    try await session.returnToTop(feed)
                    try await list.load(page: 1, into: feed, session: session, replacing: true)
                    try await list.load(page: 2, into: feed, session: session, replacing: false)
                case 2:
                    let term = session.searchTerm(from: SearchTerms.news)
                    list = NewsList(path: "/v2/everything?q=\(term.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? term)")
                    try await list.load(page: 1, into: feed, session: session, replacing: true)
                case 3:
                    list = NewsList(path: "/v2/top-headlines?country=kr")
                    try await list.load(page: 1, into: feed, session: session, replacing: true)
                default:
                    // The article opens in a web view (no image); the user reads, then comes back.
                    session.pause(25)
                }
            }
        }
    }

    /// One paged list of articles (headlines or a search).
    struct NewsList {
        let path: String
        var loaded = 0
        var total = Int.max

        mutating func load(page: Int, into feed: Feed, session: UserSession, replacing: Bool) async throws {
            guard let response = try await session.page(.newsapi, host: ArticleProjectModel.host, path: "\(path)&page=\(page)") else { return }
            total = response.total ?? total
            let items = response.items.map { Feed.Item(url: $0.image("urlToImage")?.url) }
            try await session.prepare(items.compactMap(\.url))
            loaded = (replacing ? 0 : loaded) + items.count
            if replacing { try feed.replace(with: items, session: session) } else { feed.append(items) }
        }

        /// Infinite scroll: the next page, until the API has no more.
        mutating func loadNext(into feed: Feed, session: UserSession) async throws {
            guard loaded < total, loaded % 20 == 0, loaded > 0 else { return }
            try await load(page: loaded / 20 + 1, into: feed, session: session, replacing: false)
        }
    }
}
