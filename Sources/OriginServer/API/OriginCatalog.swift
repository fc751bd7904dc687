import ImagePipeline

/// Every image URL the API pages hand out, with the ground truth of what it
/// shows. `/proxy?u=<original URL>` serves exactly that image, so clients
/// keep real-shaped URLs (for cache keys) while the bytes come from loopback.
/// A URL's content can change (a product edit): its version bumps and the
/// same URL then shows another picture.
public final class OriginCatalog: Sendable {
    private let entries = Locked<[String: ImageDescriptor]>([:])

    public init() {}

    func register(_ url: String, _ descriptor: ImageDescriptor) {
        entries.withLock { $0[url] = $0[url] ?? descriptor }
    }

    /// What `url` shows now, if the catalog handed it out.
    public func descriptor(for url: String) -> ImageDescriptor? {
        entries.withLock { $0[url] }
    }

    /// Changes what `url` shows (same size, new content), as an edited product does.
    @discardableResult
    public func edit(_ url: String) -> ImageDescriptor? {
        entries.withLock { entries in
            guard var descriptor = entries[url] else { return nil }
            descriptor.contentID = descriptor.contentID &* 0x9E37_79B9_7F4A_7C15 &+ 1
            entries[url] = descriptor
            return descriptor
        }
    }

    public var count: Int { entries.withLock { $0.count } }
}

/// Deterministic numbers for catalog generation: a value per (seed, salt...).
struct CatalogRandom {
    var state: UInt64

    init(_ parts: UInt64...) {
        state = parts.reduce(0x243F_6A88_85A3_08D3) { ($0 ^ $1) &* 0x9E37_79B9_7F4A_7C15 &+ 0x632B_E59B_D9B4_E019 }
    }

    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }
    /// A number in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }
    mutating func chance(_ probability: Double) -> Bool { unit() < probability }

    /// One of `choices`, each drawn with its `share` (shares summing to 1; the last takes any remainder).
    mutating func pick<Choice>(_ choices: [Choice], share: (Choice) -> Double) -> Choice {
        var draw = unit()
        for choice in choices {
            draw -= share(choice)
            if draw < 0 { return choice }
        }
        return choices[choices.count - 1]
    }

    mutating func hex(_ count: Int) -> String {
        String((0..<count).map { _ in Array("0123456789abcdef")[below(16)] })
    }
}
