/// Headlines (offline-first news): top headlines of kr or us, 20 a page,
/// full-width image cards, portrait ↔ landscape, and launches without a
/// network that show the stored list and its stored images.
public struct HeadlinesModel: AppModel {
    public let name = "Headlines"
    public let modelVersion = "2"
    public var behaviour: UserBehaviour {
        var behaviour = UserBehaviour.scroller
        behaviour.launches = 2...6
        behaviour.launchGapMinutes = 240
        behaviour.launchSeconds = 60
        return behaviour
    }
    static let host = "newsapi.org"
    static let cards = FeedLayout.cards(imageAspect: 630.0 / 1200.0, captionHeight: 96)

    public init() {}

    public func run(_ session: UserSession) async throws {
        // What the app stored from the last successful response, per country.
        var stored: [String: [Feed.Item]] = [:]
        var country = "kr"
        try await session.launches { _, until in
            session.screenWidth = 390
            session.screenHeight = 844
            let feed = Feed(layout: Self.cards, width: session.screenWidth, headerHeight: 44)
            try session.setOffline(session.random.chance(0.15))
            var list = Headlines(country: country)
            try await list.loadNext(into: feed, session: session, stored: &stored)
            while session.time < until {
                try session.tick()
                switch session.random.weighted([8, 0.6, 0.4, 0.6, 0.5]) {
                case 0:
                    try await session.browse(feed) { try await list.loadNext(into: feed, session: session, stored: &stored) }
                case 1:
                    // The flag button: kr ↔ us.
                    country = country == "kr" ? "us" : "kr"
                    list = Headlines(country: country)
                    try await list.loadNext(into: feed, session: session, stored: &stored)
                case 2:
                    // Rotation: the cards are laid out at the other width.
                    session.pause(0.8)
                    swap(&session.screenWidth, &session.screenHeight)
                    try feed.relayout(Self.cards, width: session.screenWidth, session: session)
                case 3:
                    // The detail screen shows the article's image across the screen.
                    guard let index = feed.visibleIndices.first, let url = feed.items[index].url else { break }
                    try session.request(url, box: (session.screenWidth, session.screenWidth * 630 / 1200))
                    session.pause(15)
                default:
                    // Offline launches come back online now and then; the list is fetched again.
                    guard session.offline else { session.pause(4); break }
                    try session.setOffline(false)
                    list = Headlines(country: country)
                    try await list.loadNext(into: feed, session: session, stored: &stored)
                }
            }
            try session.setOffline(false)
        }
    }

    struct Headlines {
        let country: String
        var loaded = 0
        var total = Int.max

        /// Page 1 replaces the list; later pages extend it. Offline, the stored list shows instead.
        mutating func loadNext(into feed: Feed, session: UserSession, stored: inout [String: [Feed.Item]]) async throws {
            guard loaded < total else { return }
            let path = "/v2/top-headlines?country=\(country)&page=\(loaded / 20 + 1)&pageSize=20"
            guard let response = try await session.page(.newsapi, host: HeadlinesModel.host, path: path) else {
                if loaded == 0 {
                    total = 0
                    try feed.replace(with: stored[country] ?? [], session: session)
                }
                return
            }
            total = response.total ?? total
            let items = response.items.map { Feed.Item(url: $0.image("urlToImage")?.url) }
            try await session.prepare(items.compactMap(\.url))
            if loaded == 0 { try feed.replace(with: items, session: session) } else { feed.append(items) }
            loaded += items.count
            stored[country] = feed.items
            if items.isEmpty { total = loaded }
        }
    }
}
