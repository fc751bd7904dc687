import Foundation
import ImagePipeline

/// The five services' API pages, generated deterministically, with the field
/// names and paging of the real responses (`../shared/realdata/`), and image
/// URLs in the shapes that matter for cache keys.
final class ServiceCatalogs: Sendable {
    let seed: UInt64
    let catalog: OriginCatalog
    /// Unsplash's `ixid` differs per response: a counter makes it so.
    private let responses = Locked<UInt64>(0)
    /// Products deleted through the API.
    private let deleted = Locked<Set<Int>>([])
    /// Real image URLs by service ("newsapi", "aladin", "unsplash", "openmarket"), from
    /// imported API responses: when a service has some, its pages hand them out instead of
    /// generated ones, each URL always showing the same picture.
    let realURLs: [String: [String]]

    init(seed: UInt64, catalog: OriginCatalog, realURLs: [String: [String]] = [:]) {
        self.seed = seed
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
        let source = ["Reuters", "NPR", "BBC News", "ESPN", "Yahoo Entertainment", "CBS News"][random.below(6)]
        var article: [String: Any] = [
            "source": ["id": source.lowercased().replacingOccurrences(of: " ", with: "-"), "name": source],
            "author": "Reporter \(random.below(400))",
            "title": "\(topic.capitalized) story \(index)",
            "description": "What happened in \(topic) today, part \(index).",
            "url": "https://news.example/\(topic)/\(id)",
            "publishedAt": "2024-10-08T\(String(format: "%02d", random.below(24))):00:00Z",
            "content": "Body of the story… [+\(random.below(4000)) chars]",
        ]
        if random.chance(0.14) {
            article["urlToImage"] = NSNull()  // as 14 of 100 real ones are
            return article
        }
        var (url, descriptor) = newsImage(source: source, id: id, random: &random)
        if let real = realURL("newsapi", id) {
            url = real
            descriptor = ImageDescriptor(contentID: hash(real), width: 1200, height: 630, format: .jpeg, quality: 82)
        }
        catalog.register(url, descriptor)
        article["urlToImage"] = url
        return article
    }

    /// Real shapes: identity in the query (NPR, ESPN), the same file name for
    /// different pictures (840_560.jpeg), one default image reused by many articles.
    private func newsImage(source: String, id: UInt64, random: inout CatalogRandom) -> (String, ImageDescriptor) {
        let picture = ImageDescriptor(contentID: id, width: 1200, height: 630, format: .jpeg, quality: 82)
        switch source {
        case "NPR":
            if random.chance(0.3) {
                return ("https://media.npr.org/include/images/facebook-default-wide-s1400-c100.jpg",
                        ImageDescriptor(contentID: 1, width: 1400, height: 788, format: .jpeg))
            }
            let inner = "http://npr-brightspot.s3.amazonaws.com/\(random.hex(2))/\(random.hex(2))/\(random.hex(24)).jpg"
            let encoded = inner.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            return ("https://npr.brightspotcdn.com/dims4/default/\(random.hex(7))/2147483647/strip/true/crop/3000x1688+0+0/resize/1400x788!/format/jpeg/?url=\(encoded)",
                    ImageDescriptor(contentID: id, width: 1400, height: 788, format: .jpeg))
        case "ESPN":
            return ("https://a.espncdn.com/combiner/i?img=%2Fphoto%2F2024%2F1008%2Fr\(random.below(999_999))_1296x729_16-9.jpg&w=1140&cquality=80",
                    ImageDescriptor(contentID: id, width: 1140, height: 641, format: .jpeg))
        case "BBC News":
            return ("https://ichef.bbci.co.uk/news/1024/branded_news/\(random.hex(4))/production/_\(random.below(99_999))_p060dh18.jpg", picture)
        default:
            return ("https://img.\(source.lowercased().replacingOccurrences(of: " ", with: ""))-cdn.example/\(random.hex(8))/840_560.jpeg", picture)
        }
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
            // Originals several thousand pixels wide, in the aspect ratios cameras and phones produce.
            let (width, height) = [(6000, 4000), (4000, 6000), (5472, 3648), (3024, 4032), (4032, 3024), (5184, 2916),
                                   (4000, 5000), (4480, 4480)][random.below(8)]
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
            let urls = [
                "raw": sized("crop=entropy&cs=srgb&fm=jpg", min(width, 2400)),
                "full": sized("crop=entropy&cs=srgb&fm=jpg&q=85", min(width, 2400)),
                "regular": sized("crop=entropy&cs=tinysrgb&fit=max&fm=jpg&q=80&w=1080", 1080),
                "small": sized("crop=entropy&cs=tinysrgb&fit=max&fm=jpg&q=80&w=400", 400),
                "thumb": sized("crop=entropy&cs=tinysrgb&fit=max&fm=jpg&q=80&w=200", 200),
            ]
            return ["id": random.hex(11), "created_at": "2023-01-0\(1 + random.below(9))T00:00:00Z", "width": width, "height": height,
                    "color": "#\(random.hex(6))", "description": NSNull(), "urls": urls, "likes": random.below(5000),
                    "user": ["id": random.hex(11), "username": "user\(random.below(9999))", "name": "Photographer \(random.below(999))"]]
        }
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

    /// A product's thumbnail URL (registered in the catalog with what it shows).
    func productThumbnail(_ index: Int) -> String {
        var random = CatalogRandom(seed, UInt64(index), 4)
        let vendor = 1 + random.below(12)
        let generated = "https://s3.ap-northeast-2.amazonaws.com/media.yagom-academy.kr/training-resources/\(vendor)/20221118/\(random.hex(32))_thumb"
            + (random.chance(0.85) ? ".png" : "")  // 15 of 100 real ones have no extension
        let thumbnail = realURL("openmarket", UInt64(index)) ?? generated
        catalog.register(thumbnail, ImageDescriptor(contentID: random.next(), width: 300, height: 300, format: .png))
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
