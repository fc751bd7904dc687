import Foundation
import Testing
@testable import ImagePipeline

@Suite("ImageMemoryCache")
struct ImageMemoryCacheTests {
    @Test("counts decoded pixel bytes, not encoded bytes")
    func costIsPixels() throws {
        let jpeg = try synth(1200, 630)
        let image = try Thumbnailer().thumbnail(jpeg, fitting: ThumbnailRequest(width: 120, height: 80, scale: 3))
        let cache = ImageMemoryCache<String>(.init(limits: CacheLimits(costLimit: 10 * image.cost)))
        #expect(cache.insert(image, for: "cover"))
        #expect(cache.totalCost == 360 * 189 * 3)
        #expect(cache.totalCost > jpeg.count)  // pixels outweigh the encoded bytes
        #expect(cache.image(for: "cover")?.pixels == image.pixels)
        cache.remove("cover")
        #expect(cache.image(for: "cover") == nil)
    }

    @Test("get-or-insert in one call decides and counts as a lookup then an insert", arguments: EvictionPolicyKind.allCases)
    func getOrInsertMatchesLookupThenInsert(_ kind: EvictionPolicyKind) {
        let limits = CacheLimits(costLimit: 5_000, countLimit: 300, maxEntryFraction: 0.2)
        let fused = MemoryCache<Int, Int>(.init(limits: limits, policy: kind, stripes: CacheStripes(2)))
        let apart = MemoryCache<Int, Int>(.init(limits: limits, policy: kind, stripes: CacheStripes(2)))
        var generator = SplitMix64(seed: 5)
        for _ in 0..<20_000 {
            let key = Int(generator.next() % 1_000)
            let cost = 1 + key % 40
            let value = fused.value(for: key, orInsert: { (key * 2, cost) }, missCost: key)
            #expect(value == key * 2)
            if apart.value(for: key) == nil { apart.insert(key * 2, for: key, cost: cost, missCost: key) }
        }
        #expect(fused.statistics == apart.statistics)
        #expect(fused.totalCost == apart.totalCost && fused.count == apart.count)
    }
}
