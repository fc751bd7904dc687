/// Picterest (Unsplash): a two-column masonry of 15 photos a page, each cell
/// loading the photo's original (`urls.raw`, thousands of pixels wide); a star
/// saves a photo to disk, the Save tab lists saved photos from disk on later
/// launches, a long press deletes one. Every response carries a new `ixid`,
/// so the same photo comes back under another URL after a reload.
public struct PicterestModel: AppModel {
    public let name = "Picterest"
    public let modelVersion = "2"
    public var behaviour: UserBehaviour {
        var behaviour = UserBehaviour.scroller
        behaviour.pauseSeconds = 3
        return behaviour
    }
    static let host = "api.unsplash.com"

    public init() {}

    public func run(_ session: UserSession) async throws {
        var saved: [Feed.Item] = []
        try await session.launches { _, until in
            let home = Feed(layout: .masonry(columns: 2, padding: 6), width: session.screenWidth)
            var photos = Photos()
            try await photos.loadNext(into: home, session: session)
            while session.time < until {
                try session.tick()
                switch session.random.weighted([8, 0.6, saved.isEmpty ? 0 : 0.5]) {
                case 0:
                    try await session.browse(home) { try await photos.loadNext(into: home, session: session) }
                case 1:
                    // Star, then a memo alert; the image already on screen is written to disk.
                    guard let index = home.visibleIndices.randomElement(using: &session.random) else { break }
                    session.pause(5)
                    if !saved.contains(home.items[index]) { saved.append(home.items[index]) }
                default:
                    try await showSaved(&saved, session)
                }
            }
        }
    }

    /// The Save tab: one column of saved photos read back from disk; sometimes a long press deletes one.
    private func showSaved(_ saved: inout [Feed.Item], _ session: UserSession) async throws {
        let tab = Feed(layout: .masonry(columns: 1, padding: 8), width: session.screenWidth)
        try tab.replace(with: saved, session: session)
        for _ in 0..<session.random.int(1...4) {
            try await session.browse(tab)
        }
        if session.random.chance(0.3), let index = tab.visibleIndices.randomElement(using: &session.random) {
            saved.removeAll { $0 == tab.items[index] }
            session.pause(2)
        }
    }

    struct Photos {
        var page = 0

        mutating func loadNext(into feed: Feed, session: UserSession) async throws {
            guard let response = try await session.page(.unsplash, host: PicterestModel.host, path: "/photos?page=\(page + 1)&per_page=15") else { return }
            page += 1
            let items = response.items.compactMap { photo -> Feed.Item? in
                guard let raw = photo.image("urls.raw"), let width = raw.width, let height = raw.height, width > 0 else { return nil }
                return Feed.Item(url: raw.url, aspect: Double(height) / Double(width))
            }
            try await session.prepare(items.compactMap(\.url))
            if page == 1 { try feed.replace(with: items, session: session) } else { feed.append(items) }
        }
    }
}
