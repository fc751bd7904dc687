import Foundation

/// Vanilladin (Aladin book search): 10 books a page, the page's 10 covers
/// fetched in parallel as the page arrives, recent searches re-run, list ↔
/// grid, a detail screen with the bigger cover, and an unbounded NSCache that
/// the app empties on every memory warning (so warnings are frequent here).
public struct VanilladinModel: AppModel {
    public let name = "Vanilladin"
    public let modelVersion = "1"
    public var behaviour: UserBehaviour {
        var behaviour = UserBehaviour.scroller
        behaviour.memoryWarningChance = 0.25
        behaviour.launchSeconds = 90
        return behaviour
    }
    static let host = "www.aladin.co.kr"
    static let list = FeedLayout.list(rowHeight: 120, imageWidth: 60, imageHeight: 88)
    static let grid = FeedLayout.grid(columns: 3, imageAspect: 1.47, captionHeight: 44)

    public init() {}

    public func run(_ session: UserSession) async throws {
        var recent: [String] = []
        try await session.launches { _, until in
            let feed = Feed(layout: Self.list, width: session.screenWidth, headerHeight: 56)
            var search = BookSearch(term: "")
            while session.time < until {
                try session.tick()
                let action = search.term.isEmpty ? 0 : session.random.weighted([0.8, 8, 0.5, 1.2])
                switch action {
                case 0:
                    // A new search, or one of the recent terms again.
                    let term = !recent.isEmpty && session.random.chance(0.35)
                        ? recent[session.random.int(0...recent.count - 1)] : session.searchTerm(from: SearchTerms.books)
                    recent.removeAll { $0 == term }
                    recent.insert(term, at: 0)
                    recent = Array(recent.prefix(10))
                    session.pause(3)  // typing
                    search = BookSearch(term: term)
                    try await search.loadNext(into: feed, session: session, replacing: true)
                case 1:
                    try await session.browse(feed) { try await search.loadNext(into: feed, session: session, replacing: false) }
                case 2:
                    session.pause(0.8)  // reaching for the toggle
                    let toGrid = feed.layout == Self.list
                    try feed.relayout(toGrid ? Self.grid : Self.list, width: session.screenWidth, session: session)
                default:
                    try await openDetail(feed, session)
                }
            }
        }
    }

    /// The detail screen shows the same book's bigger cover (`cover500` for `coversum`).
    private func openDetail(_ feed: Feed, _ session: UserSession) async throws {
        guard let index = feed.visibleIndices.randomElement(using: &session.random),
              let cover = feed.items[index].url else { return }
        let large = cover.replacingOccurrences(of: "/coversum/", with: "/cover500/")
        session.pause(1.5)  // finding the book and tapping it
        try await session.prepare([large])
        try session.request(large, box: (200, 292))
        session.pause(8)
    }

    struct BookSearch {
        let term: String
        var page = 0
        var total = Int.max

        mutating func loadNext(into feed: Feed, session: UserSession, replacing: Bool) async throws {
            guard page * 10 < total else { return }
            let query = term.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? term
            let path = "/ttb/api/ItemSearch.aspx?ttbkey=TTBKEY&Query=\(query)&QueryType=Keyword&MaxResults=10&start=\(page + 1)&SearchTarget=Book&output=js&Version=20131101"
            guard let response = try await session.page(.aladin, host: VanilladinModel.host, path: path) else { return }
            page += 1
            total = response.total ?? total
            let items = response.items.map { Feed.Item(url: $0.image("cover")?.url) }
            let urls = items.compactMap(\.url)
            try await session.prepare(urls)
            // A TaskGroup asks for all ten covers at once; the cells then show them.
            if replacing { try feed.replace(with: items, session: session, fetchedAhead: true) } else { feed.append(items, fetchedAhead: true) }
            let first = feed.items.count - items.count
            let visible = Set(feed.visibleIndices)
            for (offset, item) in items.enumerated() {
                guard let url = item.url else { continue }
                try session.request(url, box: feed.box(of: first + offset), priority: visible.contains(first + offset) ? .visible : .prefetch)
            }
            try feed.update(session)
        }
    }
}
