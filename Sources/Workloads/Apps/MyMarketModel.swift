import Foundation

/// My Market (open market): a banner carousel looping over a few images above
/// a product list of 20 a page, search, pull to refresh, fast flings that
/// cancel on cell reuse, and the seller's edits (new picture, same URL) and deletes.
public struct MyMarketModel: AppModel {
    public let name = "My Market"
    public let modelVersion = "2"
    public var behaviour: UserBehaviour {
        var behaviour = UserBehaviour.scroller
        behaviour.flingWeight = 5
        behaviour.flingDistance = 3400
        return behaviour
    }
    static let host = "openmarket.yagom-academy.kr"
    static let bannerHeight = 200.0
    /// The carousel moves on every 3 seconds while it is on screen.
    static let bannerInterval = 3000

    public init() {}

    public func run(_ session: UserSession) async throws {
        try await session.launches { _, until in
            let feed = Feed(layout: .list(rowHeight: 100, imageWidth: 80, imageHeight: 80), width: session.screenWidth,
                            headerHeight: Self.bannerHeight + 56)
            var banners = try await Carousel(session: session)
            var products = Products(search: nil)
            try await products.loadNext(into: feed, session: session, replacing: true)
            while session.time < until {
                try session.tick()
                let before = session.time
                switch session.random.weighted([8, 0.5, 0.6, 0.25, 0.15]) {
                case 0:
                    try await session.browse(feed) { try await products.loadNext(into: feed, session: session, replacing: false) }
                case 1:
                    try await session.returnToTop(feed)
                    products = Products(search: nil)
                    try await products.loadNext(into: feed, session: session, replacing: true)
                case 2:
                    session.pause(2.5)  // typing in the search bar
                    products = Products(search: session.searchTerm(from: SearchTerms.products))
                    try await products.loadNext(into: feed, session: session, replacing: true)
                case 3:
                    try await edit(feed, products, session)
                default:
                    try await delete(feed, &products, session)
                }
                if feed.offset < Self.bannerHeight { try banners.advance(from: before, session: session) }
            }
        }
    }

    /// The seller changes a product's picture: same URL, new content; the cell shows it again.
    private func edit(_ feed: Feed, _ products: Products, _ session: UserSession) async throws {
        guard let (id, url) = pickProduct(feed, products, session) else { return }
        try await session.send(method: "PATCH", path: "/api/products/\(id)")
        try session.invalidate(url)
        try await session.prepare([url])
        try session.request(url, box: (80, 80))
    }

    /// The seller deletes a product: its picture must never be shown again; the list reloads.
    private func delete(_ feed: Feed, _ products: inout Products, _ session: UserSession) async throws {
        guard let (id, url) = pickProduct(feed, products, session) else { return }
        try await session.send(method: "DELETE", path: "/api/products/\(id)")
        try session.invalidate(url)
        products = Products(search: products.search)
        try await products.loadNext(into: feed, session: session, replacing: true)
    }

    private func pickProduct(_ feed: Feed, _ products: Products, _ session: UserSession) -> (String, String)? {
        guard let index = feed.visibleIndices.randomElement(using: &session.random),
              let url = feed.items[index].url, let id = products.ids[url] else { return nil }
        return (id, url)
    }

    /// The banner carousel: a few images, the next one every few seconds, forever.
    struct Carousel {
        var urls: [String] = []
        var position = 0

        init(session: UserSession) async throws {
            guard let data = try await session.api(host: MyMarketModel.host, path: "/api/banners") else { return }
            let root = try JSONNode.parse(data, file: "/api/banners")
            for banner in try root.required("banners").array() { urls.append(try banner.required("image_url").string()) }
            try await session.prepare(urls)
            try show(session)
        }

        mutating func advance(from start: Int, session: UserSession) throws {
            guard !urls.isEmpty else { return }
            let ticks = min((session.time - start) / MyMarketModel.bannerInterval, urls.count * 2)
            for _ in 0..<ticks {
                position = (position + 1) % urls.count
                try show(session)
            }
        }

        private func show(_ session: UserSession) throws {
            guard !urls.isEmpty else { return }
            try session.request(urls[position], box: (session.screenWidth, MyMarketModel.bannerHeight))
        }
    }

    struct Products {
        let search: String?
        var page = 0
        var hasNext = true
        /// Product id by thumbnail URL, for edits and deletes.
        var ids: [String: String] = [:]

        mutating func loadNext(into feed: Feed, session: UserSession, replacing: Bool) async throws {
            guard hasNext else { return }
            var path = "/api/products?page_no=\(page + 1)&items_per_page=20"
            if let search { path += "&search_value=\(search.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? search)" }
            guard let response = try await session.page(.openmarket, host: MyMarketModel.host, path: path) else { return }
            page += 1
            hasNext = response.hasNext ?? false
            let items = response.items.map { Feed.Item(url: $0.image("thumbnail")?.url) }
            for item in response.items { if let url = item.image("thumbnail")?.url { ids[url] = item.id } }
            try await session.prepare(items.compactMap(\.url))
            if replacing { try feed.replace(with: items, session: session) } else { feed.append(items) }
        }
    }
}
