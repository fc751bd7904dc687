import Foundation
import Testing
@testable import ImagePipeline
import CacheEngine

@Suite("Cache-key strategies")
struct CacheKeyStrategyTests {
    typealias Base = CacheKeyStrategy.Base

    /// Two URLs and the strategies under which they share a key.
    struct Pair: CustomTestStringConvertible, Sendable {
        let shape: String
        let a: String
        let b: String
        let collideUnder: Set<Base>
        var testDescription: String { shape }
    }

    static let pairs: [Pair] = [
        Pair(shape: "identity in the query (NPR /format/jpeg/?url=…)",
             a: "https://npr.brightspotcdn.com/dims4/default/1a2b3c4/2147483647/strip/true/crop/3000x1688+0+0/resize/1400x788!/format/jpeg/?url=http%3A%2F%2Fnpr-brightspot.s3.amazonaws.com%2Fab%2F12%2Fphoto-one.jpg",
             b: "https://npr.brightspotcdn.com/dims4/default/1a2b3c4/2147483647/strip/true/crop/3000x1688+0+0/resize/1400x788!/format/jpeg/?url=http%3A%2F%2Fnpr-brightspot.s3.amazonaws.com%2Fcd%2F34%2Fphoto-two.jpg",
             collideUnder: [.lastPathComponent, .joinedPath]),
        Pair(shape: "identity in the query (ESPN combiner?img=)",
             a: "https://a.espncdn.com/combiner/i?img=%2Fphoto%2F2019%2F0519%2Fr545001_1296x729_16-9.jpg",
             b: "https://a.espncdn.com/combiner/i?img=%2Fphoto%2F2019%2F0519%2Fr545002_1296x729_16-9.jpg",
             collideUnder: [.lastPathComponent, .joinedPath]),
        Pair(shape: "same file name, another size folder (Aladin coversum/cover500)",
             a: "https://image.aladin.co.kr/product/3228/30/coversum/893746075x_1.jpg",
             b: "https://image.aladin.co.kr/product/3228/30/cover500/893746075x_1.jpg",
             collideUnder: [.lastPathComponent]),
        Pair(shape: "joined path is ambiguous (/a/bc.jpg, /ab/c.jpg)",
             a: "https://cdn.example.com/a/bc.jpg", b: "https://cdn.example.com/ab/c.jpg",
             collideUnder: [.joinedPath]),
        Pair(shape: "same path on another host",
             a: "https://media.zenfs.com/en/reuters/photo.jpg", b: "https://s.yimg.com/en/reuters/photo.jpg",
             collideUnder: [.lastPathComponent, .joinedPath]),
        Pair(shape: "nested URL in the path (s.yimg.com/…/https://media.zenfs.com/…)",
             a: "https://s.yimg.com/ny/api/res/1.2/AbCd--/YXBwaWQ9aGlnaGxhbmRlcg--/https://media.zenfs.com/en/a/one.jpg",
             b: "https://s.yimg.com/ny/api/res/1.2/AbCd--/YXBwaWQ9aGlnaGxhbmRlcg--/https://media.zenfs.com/en/b/one.jpg",
             collideUnder: [.lastPathComponent]),
        Pair(shape: "double encoding (%252F is not %2F)",
             a: "https://o.aolcdn.com/images/dims?url=x&image_uri=https%253A%252F%252Fs.aolcdn.com%252Fa.jpg",
             b: "https://o.aolcdn.com/images/dims?url=x&image_uri=https%3A%2F%2Fs.aolcdn.com%2Fa.jpg",
             collideUnder: [.lastPathComponent, .joinedPath]),
        Pair(shape: "escape case, unreserved escapes, host case",
             a: "https://cdn.example.com/photo%7Eone%2fx.jpg", b: "https://CDN.Example.com/photo~one%2Fx.jpg",
             collideUnder: [.lastPathComponent, .joinedPath, .normalized]),
        Pair(shape: "spaces pasted into the URL (open-market, 18 of 19)",
             a: "  https://s3.ap-northeast-2.amazonaws.com/media.yagom-academy.kr/training-resources/9/20221118/ab  cd_thumb.png ",
             b: "https://s3.ap-northeast-2.amazonaws.com/media.yagom-academy.kr/training-resources/9/20221118/ab%20%20cd_thumb.png",
             collideUnder: [.lastPathComponent, .joinedPath, .normalized]),
        Pair(shape: "http versus https",
             a: "http://image.aladin.co.kr/product/1/2/cover/k1234_1.jpg", b: "https://image.aladin.co.kr/product/1/2/cover/k1234_1.jpg",
             collideUnder: [.lastPathComponent, .joinedPath]),
        Pair(shape: "Unsplash ixid changes per response, query order changes",
             a: "https://images.unsplash.com/photo-1500000000000-abcdef123456?ixid=MnwxMjA3fDB8MXxhbGx8MXx8&ixlib=rb-1.2.1&q=80&w=400",
             b: "https://images.unsplash.com/photo-1500000000000-abcdef123456?ixlib=rb-1.2.1&w=400&q=80&ixid=M3w0NTY3OHwwfDF8YWxs",
             collideUnder: [.lastPathComponent, .joinedPath, .normalized]),
        Pair(shape: "Unsplash sizes differ only in the query",
             a: "https://images.unsplash.com/photo-1500000000000-abcdef123456?q=80&w=1080",
             b: "https://images.unsplash.com/photo-1500000000000-abcdef123456?q=80&w=400",
             collideUnder: [.lastPathComponent, .joinedPath]),
        Pair(shape: "default port and fragment",
             a: "https://cdn.example.com:443/a.jpg#top", b: "https://cdn.example.com/a.jpg",
             collideUnder: [.lastPathComponent, .joinedPath, .normalized]),
        Pair(shape: "empty port after the default port (found by fuzzing)",
             a: "https://cdn.example.com:443:/a.jpg", b: "https://cdn.example.com/a.jpg",
             collideUnder: [.lastPathComponent, .joinedPath, .normalized]),
        Pair(shape: "IPv6 literal with the default port",
             a: "https://[2001:DB8::1]:443/a.jpg", b: "https://[2001:db8::1]/a.jpg",
             collideUnder: [.lastPathComponent, .joinedPath, .normalized]),
        Pair(shape: "a host with stray colons has no port to drop (found by fuzzing)",
             a: "https://a:b:443/a.jpg", b: "https://a:b/a.jpg",
             collideUnder: [.lastPathComponent, .joinedPath]),
        Pair(shape: "tracking parameters",
             a: "https://cdn.example.com/a.jpg?utm_source=feed&v=2&utm_medium=app", b: "https://cdn.example.com/a.jpg?v=2",
             collideUnder: [.lastPathComponent, .joinedPath, .normalized]),
        Pair(shape: "dot segments",
             a: "https://cdn.example.com/a/./b/../c.jpg", b: "https://cdn.example.com/a/c.jpg",
             collideUnder: [.lastPathComponent, .normalized]),
    ]

    @Test("which strategies make a pair collide", arguments: pairs)
    func collisions(_ pair: Pair) {
        for base in Base.allCases {
            let strategy = CacheKeyStrategy(base)
            let collide = strategy.key(for: pair.a) == strategy.key(for: pair.b)
            #expect(collide == pair.collideUnder.contains(base),
                    "\(base): \"\(strategy.key(for: pair.a))\" vs \"\(strategy.key(for: pair.b))\"")
        }
    }

    @Test("the apps' key shapes, exactly")
    func keyShapes() {
        let url = "https://image.aladin.co.kr/product/3228/30/coversum/893746075x_1.jpg"
        #expect(CacheKeyStrategy(.lastPathComponent).key(for: url) == "893746075x_1.jpg")
        #expect(CacheKeyStrategy(.joinedPath).key(for: url) == "/product322830coversum893746075x_1.jpg")
        #expect(CacheKeyStrategy(.normalized).key(for: "HTTPS://Img.Example.com:443?b=2&a=1#x") == "https://img.example.com/?a=1&b=2")
    }

    @Test("processing options keep two display sizes of one URL apart")
    func processing() {
        let url = "https://cdn.example.com/a.jpg"
        let list = ProcessingOptions(ThumbnailRequest(width: 120, height: 80, scale: 3))
        let detail = ProcessingOptions(ThumbnailRequest(width: 390, height: 260, scale: 3), format: .jpeg)
        for base in Base.allCases {
            #expect(CacheKeyStrategy(base).key(for: url, processing: list) == CacheKeyStrategy(base).key(for: url, processing: detail))
            let strategy = CacheKeyStrategy(base, includesProcessing: true)
            #expect(strategy.key(for: url, processing: list) != strategy.key(for: url, processing: detail))
        }
        #expect(CacheKeyStrategy(.normalized, includesProcessing: true).key(for: url, processing: detail)
            == "https://cdn.example.com/a.jpg 390x260@3.0x,jpeg")
    }

    @Test("names round-trip for the command line")
    func names() {
        for strategy in CacheKeyStrategy.allStrategies {
            #expect(CacheKeyStrategy(name: strategy.description) == strategy)
        }
        #expect(CacheKeyStrategy(name: "normalised") == nil)
    }

    @Test("SHA-256 file names: known vectors, fixed length, hex only")
    func fileNames() {
        #expect(DiskFileName.of("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(DiskFileName.of("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let long = "https://edgecast-img.yahoo.net/mysterio/api/" + String(repeating: "a1b2/", count: 90) + "https://s.aolcdn.com/x.jpg"
        #expect(DiskFileName.isValid(DiskFileName.of(long)))
        #expect(!CacheKeyStrategy.isUsableAsFileName(long))
        #expect(CacheKeyStrategy.isUsableAsFileName(DiskFileName.of(long)))
        #expect(!CacheKeyStrategy.isUsableAsFileName("a/b") && !CacheKeyStrategy.isUsableAsFileName(".."))
    }

    static let newsAPI = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../shared/realdata/newsapi").standardized

    @Test("real NewsAPI responses: lastPathComponent collides, long URLs are not file names",
          .enabled(if: FileManager.default.fileExists(atPath: newsAPI.path), "skipped: the real NewsAPI responses are read from ../shared/realdata beside the repository, absent here"))
    func realNewsAPI() throws {
        var urls = Set<String>()
        for file in try FileManager.default.contentsOfDirectory(atPath: Self.newsAPI.path) where file.hasSuffix(".json") {
            let text = try String(contentsOf: Self.newsAPI.appendingPathComponent(file), encoding: .utf8)
            let json = text.split(separator: "\n").filter { !$0.hasPrefix("//") }.joined(separator: "\n")
            let response = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
            for article in response?["articles"] as? [[String: Any]] ?? [] {
                if let url = article["urlToImage"] as? String { urls.insert(url) }
            }
        }
        #expect(urls.count > 200)
        let byLastComponent = Set(urls.map { CacheKeyStrategy(.lastPathComponent).key(for: $0) })
        #expect(byLastComponent.count < urls.count)  // the ArticleProject bug, on real data
        #expect(Set(urls.map { CacheKeyStrategy(.normalized).key(for: $0) }).count <= urls.count)
        #expect(urls.contains { !CacheKeyStrategy.isUsableAsFileName(CacheKeyStrategy(.absoluteString).key(for: $0)) && $0.utf8.count > 255 })
    }
}

@Suite("URL normaliser: fuzzing regressions")
struct NormalizerFuzzRegressionTests {
    /// Every input libFuzzer found for the key strategies (Fuzz/Regressions/FuzzKeys), read as the
    /// fuzz target reads it: normalising twice must change nothing.
    static var found: [String] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/Regressions/FuzzKeys")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.sorted().compactMap { FileManager.default.contents(atPath: folder.appendingPathComponent($0).path) }
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// Strings built from the pieces URL parsing turns on (separators, dots, escapes, ports,
    /// volatile parameters): they reach the corners byte-level fuzzing takes minutes to find.
    @Test("normalising is idempotent on 20,000 URL-shaped strings")
    func idempotentOnURLShapedStrings() {
        let pieces = ["http", "HTTPS", "s", ":", "/", "//", ".", "..", "@", "%", "%2e", "%2E", "%3A", "%41", "%2F", "%25",
                      "80", "443", "?", "&", "=", "#", "[", "]", "::1", " ", "a", "H", "utm_x", "ixid", "é", "\t"]
        var random = SplitMix64(seed: 17)
        let strategy = CacheKeyStrategy(.normalized)
        for _ in 0..<20_000 {
            let url = (0..<Int.random(in: 1...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            let once = strategy.key(for: url)
            let twice = strategy.key(for: once)
            #expect(twice == once, "\(url.debugDescription) → \(once.debugDescription) → \(twice.debugDescription)")
            if twice != once { return }
        }
    }

    @Test("normalising is idempotent on inputs the fuzzer found")
    func idempotent() {
        let inputs = Self.found
        #expect(inputs.count >= 2)
        let strategy = CacheKeyStrategy(.normalized)
        for url in inputs {
            let once = strategy.key(for: url)
            #expect(strategy.key(for: once) == once, "\(once.debugDescription) → \(strategy.key(for: once).debugDescription)")
        }
    }
}

@Suite("URL normaliser: byte classes")
struct URLByteClassTests {
    @Test("the bit sets hold exactly RFC 3986's unreserved bytes, the bytes that must be escaped, and those copied as they are")
    func byteClasses() {
        for value in 0...255 {
            let byte = UInt8(value)
            let unreserved = byte.isASCIILetter || byte.isASCIIDigit || "-._~".utf8.contains(byte)
            let escaped = !unreserved && (byte <= 0x20 || byte >= 0x7F || "\"<>\\^`{|}".utf8.contains(byte))
            #expect(isUnreserved(byte) == unreserved, "byte \(value)")
            #expect(mustEscape(byte) == escaped, "byte \(value)")
            #expect(isCopiedVerbatim(byte) == (!escaped && byte != UInt8(ascii: "%")), "byte \(value)")
        }
    }
}
