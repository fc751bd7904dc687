import Foundation

/// The four services whose API responses name the apps' images.
public enum Service: String, CaseIterable, Sendable, Codable, CodingKeyRepresentable {
    case newsapi, aladin, unsplash, openmarket
}

/// One image URL an API response hands out, and what the response says about it.
public struct CataloguedImage: Codable, Sendable, Equatable {
    /// The URL exactly as the response has it (after JSON decoding).
    public var url: String
    /// Which field it came from: `urlToImage`, `cover`, `urls.raw`, `thumbnail`, `images.url`, …
    public var role: String
    /// The picture's own size, when the response gives it (Unsplash does).
    public var width: Int?
    public var height: Int?
}

/// One item of a list response (an article, a book, a photo, a product) and its images.
public struct ServiceItem: Codable, Sendable, Equatable {
    public var id: String
    public var images: [CataloguedImage]

    /// The image in `role`, if the item has one.
    public func image(_ role: String) -> CataloguedImage? { images.first { $0.role == role } }
}

/// A parsed list response: its items in order and what it says about paging.
public struct ServicePage: Sendable, Equatable {
    public var items: [ServiceItem]
    public var total: Int?
    public var hasNext: Bool?
}

/// Parses the services' JSON the way the apps do, in every shape their real
/// responses come in (NewsAPI with comment lines, Unsplash lists and
/// searches, the open market's snake_case, camelCase and 2021 layouts).
public enum ServiceResponses {
    public static func parse(_ data: Data, service: Service, file: String) throws(ImportError) -> ServicePage {
        try parse(JSONNode.parse(data, file: file), service: service)
    }

    static func parse(_ root: JSONNode, service: Service) throws(ImportError) -> ServicePage {
        switch service {
        case .newsapi: return try news(root)
        case .aladin: return try aladin(root)
        case .unsplash: return try unsplash(root)
        case .openmarket: return try market(root)
        }
    }

    /// Which service a response comes from, from its shape.
    static func detect(_ root: JSONNode) throws(ImportError) -> Service {
        if root.value is [Any] || root.has("results") { return .unsplash }
        if root.has("articles") { return .newsapi }
        if root.has("item") { return .aladin }
        if root.has("pages") || root.has("items") || root.has("images") { return .openmarket }
        throw root.fail("not a NewsAPI, Aladin, Unsplash or open-market response")
    }

    private static func news(_ root: JSONNode) throws(ImportError) -> ServicePage {
        if let status = try root.optional("status"), try status.string() == "error" {
            throw status.fail("the API answered with an error: \((try? root.required("message").string()) ?? "no message")")
        }
        var items: [ServiceItem] = []
        for (index, article) in try root.required("articles").array().enumerated() {
            let id = try article.optional("url")?.string() ?? "article-\(index)"
            let images = try article.optional("urlToImage").map { node throws(ImportError) in
                [CataloguedImage(url: try node.string(), role: "urlToImage")]
            } ?? []
            items.append(ServiceItem(id: id, images: images))
        }
        return ServicePage(items: items, total: try root.optional("totalResults")?.int(), hasNext: nil)
    }

    private static func aladin(_ root: JSONNode) throws(ImportError) -> ServicePage {
        var items: [ServiceItem] = []
        for book in try root.required("item").array() {
            let id: String
            if let itemID = try book.optional("itemId") { id = String(try itemID.int()) } else { id = try book.optional("isbn13")?.string() ?? "" }
            let images = try book.optional("cover").map { node throws(ImportError) in [CataloguedImage(url: try node.string(), role: "cover")] } ?? []
            items.append(ServiceItem(id: id, images: images))
        }
        return ServicePage(items: items, total: try root.optional("totalResults")?.int(), hasNext: nil)
    }

    private static func unsplash(_ root: JSONNode) throws(ImportError) -> ServicePage {
        let photos = root.value is [Any] ? try root.array() : try root.required("results").array()
        var items: [ServiceItem] = []
        for photo in photos {
            let width = try photo.required("width").int(), height = try photo.required("height").int()
            let urls = try photo.required("urls")
            var images: [CataloguedImage] = []
            for size in ["raw", "full", "regular", "small", "thumb", "small_s3"] {
                guard let url = try urls.optional(size) else { continue }
                images.append(CataloguedImage(url: try url.string(), role: "urls.\(size)", width: width, height: height))
            }
            items.append(ServiceItem(id: try photo.required("id").string(), images: images))
        }
        let total = root.value is [Any] ? nil : try root.optional("total")?.int()
        return ServicePage(items: items, total: total, hasNext: nil)
    }

    private static func market(_ root: JSONNode) throws(ImportError) -> ServicePage {
        // A product detail: its thumbnail and every image, original and thumb.
        if root.has("images") && !root.has("pages") {
            var images = [CataloguedImage(url: try root.required("thumbnail").string(), role: "thumbnail")]
            for image in try root.required("images").array() {
                images.append(CataloguedImage(url: try image.required("url").string(), role: "images.url"))
                if let thumb = try image.optional("thumbnail_url") {
                    images.append(CataloguedImage(url: try thumb.string(), role: "images.thumbnail_url"))
                }
            }
            return ServicePage(items: [ServiceItem(id: String(try root.required("id").int()), images: images)], total: 1, hasNext: false)
        }
        // 2021 API: {page, items[].thumbnails[]}.
        if root.has("items") {
            var items: [ServiceItem] = []
            for item in try root.required("items").array() {
                let thumbnails = try item.required("thumbnails").array()
                var images: [CataloguedImage] = []
                for thumbnail in thumbnails { images.append(CataloguedImage(url: try thumbnail.string(), role: "thumbnails")) }
                items.append(ServiceItem(id: String(try item.required("id").int()), images: images))
            }
            return ServicePage(items: items, total: nil, hasNext: nil)
        }
        var items: [ServiceItem] = []
        for product in try root.required("pages").array() {
            items.append(ServiceItem(id: String(try product.required("id").int()),
                                     images: [CataloguedImage(url: try product.required("thumbnail").string(), role: "thumbnail")]))
        }
        let totalNode = try root.optional(root.has("total_count") ? "total_count" : "totalCount")
        let hasNextNode = try root.optional(root.has("has_next") ? "has_next" : "hasNext")
        let total = try totalNode?.int()
        let hasNext = try hasNextNode?.bool()
        return ServicePage(items: items, total: total, hasNext: hasNext)
    }
}
