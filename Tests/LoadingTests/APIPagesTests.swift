import AsyncHTTPClient
import Foundation
import HTTPImageLoading
import ImagePipeline
import OriginServer
import Testing

/// GETs a JSON page from the origin.
func page(_ origin: OriginServer, _ path: String) async throws -> Any {
    let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: origin.baseURL + path), timeout: .seconds(30))
    #expect(response.status == .ok)
    #expect(response.headers.first(name: "content-type")?.hasPrefix("application/json") == true)
    let body = try await response.body.collect(upTo: 4 << 20)
    return try JSONSerialization.jsonObject(with: Data(buffer: body))
}

@Suite("The five services' API pages on the origin")
struct APIPagesTests {
    @Test("NewsAPI: paging, null images, shared file names, proxied images with their ground truth")
    func newsAPI() async throws {
        let origin = try await startOrigin()
        let first = try await page(origin, "/v2/top-headlines?country=kr&page=1&pageSize=20") as! [String: Any]
        #expect(first["status"] as? String == "ok")
        let total = first["totalResults"] as! Int
        let articles = first["articles"] as! [[String: Any]]
        #expect(articles.count == 20)
        #expect(Set(articles[0].keys) == ["source", "author", "title", "description", "url", "urlToImage", "publishedAt", "content"])
        let last = try await page(origin, "/v2/top-headlines?country=kr&page=\((total + 19) / 20)&pageSize=20") as! [String: Any]
        #expect((last["articles"] as! [Any]).count == total - 20 * ((total + 19) / 20 - 1))
        let beyond = try await page(origin, "/v2/top-headlines?country=kr&page=99&pageSize=20") as! [String: Any]
        #expect((beyond["articles"] as! [Any]).isEmpty)  // past the end: empty, not a crash

        var urls: [String] = []
        for number in 1...4 {
            let everything = try await page(origin, "/v2/everything?q=apple&page=\(number)&pageSize=20") as! [String: Any]
            urls += (everything["articles"] as! [[String: Any]]).compactMap { $0["urlToImage"] as? String }
        }
        #expect(urls.count < 80)  // some urlToImage are null
        // Different pictures, one file name (NPR's paths end in "/", ESPN's in "/i"): the ArticleProject bug's input.
        let byFileName = Dictionary(grouping: Set(urls), by: { CacheKeyStrategy(.lastPathComponent).key(for: $0) })
        #expect(byFileName.values.contains { $0.count > 1 })

        let fetcher = HTTPImageFetcher(.loopbackUnderLoad)
        let url = try #require(urls.first)
        let truth = try #require(origin.catalog.descriptor(for: url))
        let image = try await fetcher.fetch(origin.proxyURL(for: url))
        let header = try Thumbnailer().header(of: image.data)
        #expect((header.width, header.height) == (truth.width, truth.height))
        await #expect(throws: FetchError.status(404)) { try await fetcher.fetch(origin.proxyURL(for: "https://unknown.example/x.jpg")) }
        try await fetcher.shutdown()
        await origin.stop()
    }

    @Test("Unsplash: five sizes of one photo; ixid changes per response, the picture does not")
    func unsplash() async throws {
        let origin = try await startOrigin()
        let a = try await page(origin, "/photos?page=1&per_page=15") as! [[String: Any]]
        let b = try await page(origin, "/photos?page=1&per_page=15") as! [[String: Any]]
        #expect(a.count == 15)
        let urlsA = a[0]["urls"] as! [String: String], urlsB = b[0]["urls"] as! [String: String]
        #expect(Set(urlsA.keys) == ["raw", "full", "regular", "small", "thumb"])
        #expect(urlsA["small"] != urlsB["small"])  // another ixid
        #expect(CacheKeyStrategy(.normalized).key(for: urlsA["small"]!) == CacheKeyStrategy(.normalized).key(for: urlsB["small"]!))
        let fetcher = HTTPImageFetcher(.loopbackUnderLoad)
        let small = try await fetcher.fetch(origin.proxyURL(for: urlsA["small"]!))
        #expect(small.data == (try await fetcher.fetch(origin.proxyURL(for: urlsB["small"]!))).data)
        #expect(try Thumbnailer().header(of: small.data).width == 400)
        #expect(origin.catalog.descriptor(for: urlsA["thumb"]!)?.contentID == origin.catalog.descriptor(for: urlsA["regular"]!)?.contentID)
        try await fetcher.shutdown()
        await origin.stop()
    }

    @Test("Aladin: 10 per page from `start`, coversum in the list, cover500 for the same book")
    func aladin() async throws {
        let origin = try await startOrigin()
        let result = try await page(origin, "/ttb/api/ItemSearch.aspx?Query=swift&start=1&MaxResults=10") as! [String: Any]
        let items = result["item"] as! [[String: Any]]
        #expect(items.count == 10)
        #expect(result["itemsPerPage"] as? Int == 10 && result["startIndex"] as? Int == 1)
        let cover = items[0]["cover"] as! String
        #expect(cover.contains("/coversum/"))
        let large = cover.replacingOccurrences(of: "/coversum/", with: "/cover500/")
        #expect(origin.catalog.descriptor(for: large)?.width == 500)
        #expect(origin.catalog.descriptor(for: large)?.contentID == origin.catalog.descriptor(for: cover)?.contentID)
        await origin.stop()
    }

    @Test("open market: page_no paging, has_next; an edit changes the picture at the same URL")
    func market() async throws {
        let origin = try await startOrigin()
        let result = try await page(origin, "/api/products?page_no=1&items_per_page=20") as! [String: Any]
        #expect(result["has_next"] as? Bool == true && result["has_prev"] as? Bool == false)
        let products = result["pages"] as! [[String: Any]]
        #expect(products.count == 20)
        let thumbnail = products[0]["thumbnail"] as! String
        let fetcher = HTTPImageFetcher(.loopbackUnderLoad)
        let before = try await fetcher.fetch(origin.proxyURL(for: thumbnail))
        origin.catalog.edit(thumbnail)
        let after = try await fetcher.fetch(origin.proxyURL(for: thumbnail))
        #expect(before.data != after.data)
        #expect(try Thumbnailer().header(of: after.data).width == 300)
        let lastPage = try await page(origin, "/api/products?page_no=10&items_per_page=20") as! [String: Any]
        #expect(lastPage["has_next"] as? Bool == false)
        try await fetcher.shutdown()
        await origin.stop()
    }
}

@Suite("API pages drawn from a URL catalogue")
struct CataloguePagesTests {
    @Test("with real URLs per service, the pages hand them out and /proxy serves each as one picture")
    func realURLs() async throws {
        let news = ["https://img.example.com/a/photo.jpg", "https://cdn.example.org/b/photo.jpg?w=1200"]
        let covers = ["https://image.aladin.co.kr/product/1/2/coversum/893746075x_1.jpg"]
        let thumbnails = ["https://s3.example.com/market/1_thumb.png", "https://s3.example.com/market/2_thumb"]
        let origin = try await OriginServer.start(.init(
            imageURLs: ["newsapi": news, "aladin": covers, "openmarket": thumbnails]))
        defer { Task { await origin.stop() } }

        let headlines = try await page(origin, "/v2/top-headlines?country=us&page=1&pageSize=20") as! [String: Any]
        let images = (headlines["articles"] as! [[String: Any]]).compactMap { $0["urlToImage"] as? String }
        #expect(!images.isEmpty && images.allSatisfy(news.contains))
        let books = try await page(origin, "/ttb/api/ItemSearch.aspx?Query=swift&start=1&MaxResults=10") as! [String: Any]
        #expect((books["item"] as! [[String: Any]]).allSatisfy { $0["cover"] as? String == covers[0] })
        let products = try await page(origin, "/api/products?page_no=1&items_per_page=20") as! [String: Any]
        #expect((products["pages"] as! [[String: Any]]).allSatisfy { thumbnails.contains($0["thumbnail"] as! String) })

        // One URL, one picture: fetched twice through /proxy, the same bytes; the detail size exists too.
        for url in [news[0], covers[0].replacingOccurrences(of: "/coversum/", with: "/cover500/"), thumbnails[1]] {
            let first = try await HTTPClient.shared.execute(HTTPClientRequest(url: origin.proxyURL(for: url)), timeout: .seconds(60))
            #expect(first.status == .ok, "\(url)")
            let second = try await HTTPClient.shared.execute(HTTPClientRequest(url: origin.proxyURL(for: url)), timeout: .seconds(60))
            #expect(first.headers.first(name: "etag") == second.headers.first(name: "etag"))
            _ = try await first.body.collect(upTo: 16 << 20)
            _ = try await second.body.collect(upTo: 16 << 20)
        }
    }
}
