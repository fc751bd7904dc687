import Foundation
import ImagePipeline

/// The five services' API pages, generated deterministically, with the field
/// names and paging of the services' real responses, and image
/// URLs in the shapes that matter for cache keys.
final class ServiceCatalogs: Sendable {
    let seed: UInt64
    let catalog: OriginCatalog
    /// Where news images come from, and how their URLs look.
    let news: NewsImageModel
    /// Unsplash's `ixid` differs per response: a counter makes it so.
    private let responses = Locked<UInt64>(0)
    /// Products deleted through the API.
    private let deleted = Locked<Set<Int>>([])
    /// Real image URLs by service ("newsapi", "aladin", "unsplash", "openmarket"), from
    /// imported API responses: when a service has some, its pages hand them out instead of
    /// generated ones, each URL always showing the same picture.
    let realURLs: [String: [String]]

    init(seed: UInt64, catalog: OriginCatalog, news: NewsImageModel = NewsImageModel(), realURLs: [String: [String]] = [:]) {
        self.seed = seed
        self.news = news
        self.catalog = catalog
        self.realURLs = realURLs.filter { !$0.value.isEmpty }
    }

    /// A real URL of `service` chosen by `key`, if the catalogue has any.
    private func realURL(_ service: String, _ key: UInt64) -> String? {
        realURLs[service].map { $0[Int(key % UInt64($0.count))] }
    }

    // MARK: NewsAPI: /v2/top-headlines?country=&page=&pageSize=, /v2/everything?q=&page=&pageSize=

    /// Newest first; one new article arrives every 45 minutes of `clock` and pushes the others down.
    func news(endpoint: String, topic: String, page: Int, pageSize: Int, clock: Int) -> [String: Any] {
        var sizing = CatalogRandom(seed, hash(topic))
        let total = 37 + Int(sizing.next() % 60)
        let start = (page - 1) * pageSize
        let newest = Self.firstIndex + clock / 45
        let articles = pageRange(start, pageSize, total).map { article(topic: topic, index: newest - $0) }
        return ["status": "ok", "totalResults": total, "articles": articles]
    }

    /// Items are numbered from here so that newer ones (higher numbers) never run out.
    static let firstIndex = 100_000

    private func article(topic: String, index: Int) -> [String: Any] {
        var random = CatalogRandom(seed, hash(topic), UInt64(index))
        let id = random.next()
        let hasImage = !random.chance(0.075)  // as 18 of 240 real articles have none
        var picture = news.picture(&random)
        var article: [String: Any] = [
            "source": ["id": picture.source.lowercased().replacingOccurrences(of: " ", with: "-"), "name": picture.source],
            "author": "Reporter \(random.below(400))",
            "title": "\(topic.capitalized) story \(index)",
            "description": "What happened in \(topic) today, part \(index).",
            "url": "https://news.example/\(topic)/\(id)",
            "publishedAt": "2024-10-08T\(String(format: "%02d", random.below(24))):00:00Z",
            "content": "Body of the story… [+\(random.below(4000)) chars]",
        ]
        guard hasImage else {
            article["urlToImage"] = NSNull()
            return article
        }
        // One URL always shows one picture, whichever article names it (NPR's default image).
        var content = picture.url.hasPrefix("https://media.npr.org/include/") ? 1 : id
        if let real = realURL("newsapi", id) {
            picture = NewsImageModel.Picture(url: real, source: picture.source, width: 1200, height: 630, format: .jpeg)
            content = hash(real)
        }
        catalog.register(picture.url, ImageDescriptor(contentID: content, width: picture.width, height: picture.height, format: picture.format))
        article["urlToImage"] = picture.url
        return article
    }

    // MARK: Aladin: /ttb/api/ItemSearch.aspx?Query=&start=&MaxResults=

    func aladin(query: String, start: Int, maxResults: Int) -> [String: Any] {
        var sizing = CatalogRandom(seed, hash(query))
        let total = 23 + Int(sizing.next() % 90)
        let first = (start - 1) * maxResults
        let items: [[String: Any]] = pageRange(first, maxResults, total).map { index in
            var random = CatalogRandom(seed, hash(query), UInt64(index), 7)
            let isbn = "89\(random.below(100_000_000))" + (random.chance(0.1) ? "x" : "\(random.below(10))")
            let path = "https://image.aladin.co.kr/product/\(random.below(35_000))/\(random.below(99))"
            var content = random.next()
            var cover = "\(path)/coversum/\(isbn)_1.jpg"
            if let real = realURL("aladin", content), real.contains("/coversum/") {
                cover = real
                content = hash(real)
            }
            // The list shows coversum; the detail screen the bigger cover500 of the same book.
            catalog.register(cover, ImageDescriptor(contentID: content, width: 85, height: 125, format: .jpeg, quality: 90))
            catalog.register(
                cover.replacingOccurrences(of: "/coversum/", with: "/cover500/"),
                ImageDescriptor(contentID: content, width: 500, height: 730, format: .jpeg, quality: 90))
            return [
                "title": "\(query) book \(index)", "link": "http://www.aladin.co.kr/shop/wproduct.aspx?ItemId=\(content % 400_000_000)&amp;partner=openAPI",
                "author": "Author \(random.below(900))", "pubDate": "2025-12-21", "description": "About \(query).",
                "isbn": isbn, "isbn13": "979\(isbn)", "itemId": Int(content % 400_000_000), "priceSales": 13_500, "priceStandard": 15_000,
                "cover": cover, "publisher": "Publisher \(random.below(50))", "customerReviewRank": random.below(11),
            ]
        }
        return ["version": "20131101", "title": "알라딘 검색결과 - \(query)", "totalResults": total, "startIndex": start,
                "itemsPerPage": maxResults, "query": query, "item": items]
    }

    // MARK: Unsplash: /photos?page=&per_page=

    /// Latest first; a new photo every 20 minutes of `clock`.
    func unsplash(page: Int, perPage: Int, clock: Int) -> [[String: Any]] {
        let response = responses.withLock { $0 += 1; return $0 }
        let newest = Self.firstIndex + clock / 20
        return (0..<perPage).map { offset in
            let index = newest - ((page - 1) * perPage + offset)
            var random = CatalogRandom(seed, UInt64(index), 15)
            var content = random.next()
            let (width, height) = Self.unsplashOriginal(&random)
            var base = "https://images.unsplash.com/photo-\(1_600_000_000_000 + index)-\(random.hex(12))"
            if let real = realURL("unsplash", content), let path = real.split(separator: "?").first {
                base = String(path)
                content = hash(base)
            }
            // ixid changes per response: the same photo comes back under another URL.
            let ixid = "M3w\(String(response, radix: 36))fDB8MXxhbGx8\(index)"
            func sized(_ query: String, _ w: Int) -> String {
                let url = "\(base)?\(query)&ixid=\(ixid)&ixlib=rb-4.0.3"
                catalog.register(url, ImageDescriptor(contentID: content, width: w, height: w * height / width, format: .jpeg))
                return url
            }
            var urls = [
                "raw": sized("crop=entropy&cs=srgb&fm=jpg", width),
                "full": sized("crop=entropy&cs=srgb&fm=jpg&q=85", width),
                "regular": sized("crop=entropy&cs=tinysrgb&fit=max&fm=jpg&q=80&w=1080", 1080),
                "small": sized("crop=entropy&cs=tinysrgb&fit=max&fm=jpg&q=80&w=400", 400),
                "thumb": sized("crop=entropy&cs=tinysrgb&fit=max&fm=jpg&q=80&w=200", 200),
            ]
            // Newer responses also name the small size on S3, by path alone (30 of the 70 real photos).
            if random.chance(0.43), let photo = base.split(separator: "/").last {
                let url = "https://s3.us-west-2.amazonaws.com/images.unsplash.com/small/\(photo)"
                catalog.register(url, ImageDescriptor(contentID: content, width: 400, height: 400 * height / width, format: .jpeg))
                urls["small_s3"] = url
            }
            return ["id": random.hex(11), "created_at": "2023-01-0\(1 + random.below(9))T00:00:00Z", "width": width, "height": height,
                    "color": "#\(random.hex(6))", "description": NSNull(), "urls": urls, "likes": random.below(5000),
                    "user": ["id": random.hex(11), "username": "user\(random.below(9999))", "name": "Photographer \(random.below(999))"]]
        }
    }

    /// An original's size, in the mix of the real responses' 70 photos: median width about
    /// 4,000 px, the largest 8,688, half of them portrait; cameras' and phones' aspect ratios.
    static func unsplashOriginal(_ random: inout CatalogRandom) -> (width: Int, height: Int) {
        let sizes: [(share: Double, width: Int, height: Int)] = [
            (0.20, 4000, 6000), (0.10, 3744, 5616), (0.08, 3456, 5184), (0.08, 3024, 4032), (0.05, 2832, 4240),
            (0.12, 6000, 4000), (0.12, 5184, 3456), (0.07, 5616, 3744), (0.06, 4032, 3024), (0.04, 2784, 1856),
            (0.04, 8256, 5504), (0.04, 8688, 5792),
        ]
        let size = random.pick(sizes, share: \.share)
        return (size.width, size.height)
    }

    // MARK: Open market: /api/products?page_no=&items_per_page=&search_value=, /api/banners

    /// Newest first; a product is registered every two hours of `clock`. A
    /// search keeps about one product in five; deleted products are gone.
    func market(page: Int, itemsPerPage: Int, search: String?, clock: Int) -> [String: Any] {
        let newest = Self.firstIndex + clock / 120
        let gone = deleted.withLock { $0 }
        let matching = (newest - 199...newest).reversed().filter { index in
            !gone.contains(index) && (search.map { (hash($0) ^ UInt64(index)) % 5 == 0 } ?? true)
        }
        let total = matching.count
        let first = (page - 1) * itemsPerPage
        let pages: [[String: Any]] = pageRange(first, itemsPerPage, total).map { position in
            let index = matching[position]
            var random = CatalogRandom(seed, UInt64(index), 4)
            let vendor = 1 + random.below(12)
            let price = 1_000 * (1 + random.below(300))
            return ["id": index, "vendor_id": vendor, "name": "Product \(index)", "thumbnail": productThumbnail(index), "currency": "KRW",
                    "price": price, "bargain_price": price, "discounted_price": 0, "stock": random.below(100),
                    "created_at": "2022-11-18T00:00:00", "issued_at": "2022-11-18T00:00:00"]
        }
        let lastPage = max(1, (total + itemsPerPage - 1) / itemsPerPage)
        return ["page_no": page, "items_per_page": itemsPerPage, "total_count": total, "offset": first, "limit": itemsPerPage,
                "pages": pages, "last_page": lastPage, "has_next": page < lastPage, "has_prev": page > 1]
    }

    /// A product's thumbnail URL (registered in the catalog with what it shows), in the shapes and
    /// mix of the real responses: a quarter on the 2021 server's bucket host, the rest on the
    /// path-style S3 endpoint, 12% of those with no extension.
    func productThumbnail(_ index: Int) -> String {
        var random = CatalogRandom(seed, UInt64(index), 4)
        let vendor = 1 + random.below(12)
        let folder = "https://s3.ap-northeast-2.amazonaws.com/media.yagom-academy.kr/training-resources/\(vendor)"
        let generated: String, format: ImageFormat
        if random.chance(0.25) {
            (generated, format) = ("https://camp-open-market.s3.ap-northeast-2.amazonaws.com/thumbnails/\(index % 100_000)-\(1 + random.below(3)).png", .png)
        } else {
            let name = random.chance(0.7) ? "\(folder)/20221118/\(random.hex(32))_thumb" : "\(folder)/thumb/\(random.hex(32))"
            let draw = random.below(100)
            (generated, format) = draw < 43 ? (name + [".jpg", ".jpeg"][draw % 2], .jpeg)
                : draw < 88 ? (name + ".png", .png)
                : (name, draw % 2 == 0 ? .jpeg : .png)
        }
        let thumbnail = realURL("openmarket", UInt64(index)) ?? generated
        catalog.register(thumbnail, ImageDescriptor(contentID: random.next(), width: 300, height: 300, format: format))
        return thumbnail
    }

    /// A seller edits a product: its thumbnail URL now shows another picture.
    func editProduct(_ index: Int) -> Bool {
        catalog.edit(productThumbnail(index)) != nil
    }

    func deleteProduct(_ index: Int) {
        deleted.withLock { _ = $0.insert(index) }
    }

    /// The carousel's few banner images.
    func banners() -> [String: Any] {
        let banners: [[String: Any]] = (1...5).map { number in
            let url = "https://s3.ap-northeast-2.amazonaws.com/media.yagom-academy.kr/training-resources/banner/banner\(number).jpg"
            var random = CatalogRandom(seed, UInt64(number), 5)
            catalog.register(url, ImageDescriptor(contentID: random.next(), width: 1170, height: 600, format: .jpeg))
            return ["id": number, "image_url": url]
        }
        return ["banners": banners]
    }

    /// The items of one page; empty past the last page (never an invalid range).
    private func pageRange(_ first: Int, _ size: Int, _ total: Int) -> Range<Int> {
        let start = min(max(first, 0), total)
        return start..<min(start + size, total)
    }

    private func hash(_ text: String) -> UInt64 {
        text.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    }
}
