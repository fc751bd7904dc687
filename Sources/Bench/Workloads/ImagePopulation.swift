import Foundation
import ImagePipeline
import Workloads

/// The distinct image URLs of one service, with the original size of each
/// picture where known: what the real responses hold and what a dataset asks
/// for, measured alike so the two can be compared.
public struct ImagePopulation: Sendable {
    public var urls: [String]
    /// Width and height of each picture's original, where known.
    public var originals: [(width: Int, height: Int)]
    /// Share of the responses' items that name no image, where known (a trace's requests cannot tell).
    public var itemsWithoutImage: Double?

    public init(urls: [String], originals: [(width: Int, height: Int)] = [], itemsWithoutImage: Double? = nil) {
        var seen = Set<String>()
        self.urls = urls.filter { seen.insert($0).inserted }
        self.originals = originals
        self.itemsWithoutImage = itemsWithoutImage
    }

    /// One measured figure.
    public struct Figure: Sendable, Equatable {
        public var statistic: String
        public var kind: FidelityTarget.Kind
        public var value: Double
    }

    /// Every figure the population has data for.
    public var figures: [Figure] {
        guard !urls.isEmpty else { return [] }
        let count = Double(urls.count)
        func share(_ matching: Int) -> Double { Double(matching) / count }
        var figures = [
            Figure(statistic: "URLs sharing their last path component with another", kind: .share,
                   value: share(sharingKey(CacheKeyStrategy(.lastPathComponent)))),
            Figure(statistic: "URLs sharing their joined path with another", kind: .share,
                   value: share(sharingKey(CacheKeyStrategy(.joinedPath)))),
        ]
        let hosts = Dictionary(urls.map { (URL(string: $0)?.host?.lowercased() ?? "", 1) }, uniquingKeysWith: +).values.sorted(by: >)
        figures.append(Figure(statistic: "URLs on the most common host", kind: .share, value: share(hosts.first ?? 0)))
        figures.append(Figure(statistic: "URLs on the five most common hosts", kind: .share, value: share(hosts.prefix(5).reduce(0, +))))
        figures.append(Figure(statistic: "URLs with a query", kind: .share, value: share(urls.count { $0.contains("?") })))
        figures.append(Figure(statistic: "URLs whose identity is in the query", kind: .share, value: share(identityInQuery)))
        let extensions = urls.map(Self.fileExtension)
        for (name, members) in [("jpg or jpeg", ["jpg", "jpeg"]), ("png", ["png"]), ("none", [""])] {
            figures.append(Figure(statistic: "URLs with extension \(name)", kind: .share, value: share(extensions.count { members.contains($0) })))
        }
        if let itemsWithoutImage {
            figures.append(Figure(statistic: "items without an image", kind: .share, value: itemsWithoutImage))
        }
        if !originals.isEmpty {
            let widths = originals.map(\.width).sorted()
            figures.append(Figure(statistic: "original width, median (px)", kind: .size, value: Double(widths[widths.count / 2])))
            figures.append(Figure(statistic: "original width, largest (px)", kind: .size, value: Double(widths.last!)))
            figures.append(Figure(statistic: "portrait originals", kind: .share,
                                  value: Double(originals.count { $0.height > $0.width }) / Double(originals.count)))
        }
        return figures
    }

    /// URLs whose key under `strategy` some other URL of the population shares.
    private func sharingKey(_ strategy: CacheKeyStrategy) -> Int {
        let keys = urls.map { strategy.key(for: $0) }
        let counts = Dictionary(keys.map { ($0, 1) }, uniquingKeysWith: +)
        return keys.count { counts[$0]! > 1 }
    }

    /// URLs with a query whose address without it another URL shares: the picture is named in the query.
    private var identityInQuery: Int {
        let bases = urls.map { $0.split(separator: "?", maxSplits: 1).first.map(String.init) ?? $0 }
        let counts = Dictionary(bases.map { ($0, 1) }, uniquingKeysWith: +)
        return zip(urls, bases).count { $0.contains("?") && counts[$1]! > 1 }
    }

    /// The path's extension, lower-cased; "" when it has none.
    static func fileExtension(_ url: String) -> String {
        let path = URL(string: url)?.path ?? url
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return "" }
        return String(last[last.index(after: dot)...]).lowercased()
    }
}

extension ImagePopulation {
    /// The images a service's real responses name: NewsAPI's `urlToImage`,
    /// Aladin's covers, every Unsplash size with each photo's original size, the market's thumbnails.
    public init(catalogue: URLCatalogue, service: Service) {
        let entries = catalogue.entries.filter { $0.service == service }
        let imageless = catalogue.items[service].flatMap { items in
            items > 0 ? Double(catalogue.itemsWithoutImage[service] ?? 0) / Double(items) : nil
        }
        switch service {
        case .unsplash:
            var seen = Set<String>()
            let pictures = entries.filter { seen.insert($0.item).inserted }
            self.init(urls: entries.map(\.image.url),
                      originals: pictures.compactMap { entry in entry.image.width.flatMap { w in entry.image.height.map { (w, $0) } } },
                      itemsWithoutImage: imageless)
        case .openmarket:
            self.init(urls: entries.filter { ["thumbnail", "thumbnails"].contains($0.image.role) }.map(\.image.url), itemsWithoutImage: imageless)
        case .newsapi, .aladin:
            self.init(urls: entries.map(\.image.url), itemsWithoutImage: imageless)
        }
    }
}
