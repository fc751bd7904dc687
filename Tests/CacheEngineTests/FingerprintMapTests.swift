@testable import CacheEngine
import Testing

@Suite("FingerprintMap")
struct FingerprintMapTests {
    /// The inverse of the map's multiplier modulo 2^64 (Newton's iteration), to make
    /// fingerprints whose products, and so whose home buckets, we choose.
    static let inverse: UInt64 = {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var inverse = multiplier
        for _ in 0..<6 { inverse &*= 2 &- multiplier &* inverse }
        return inverse
    }()

    /// A fingerprint whose product with the multiplier is `product`.
    static func fingerprint(product: UInt64) -> UInt64 { product &* inverse }

    /// Random stores, overwrites and removals against a dictionary, with fingerprints
    /// that all land in the first bucket, all in the last (their runs wrap around the
    /// table's end), or anywhere: every stored value is found, and nothing removed is.
    @Test("finds what a dictionary finds, under heavy collisions", arguments: ["first bucket", "last bucket", "anywhere"])
    func agreesWithDictionary(placement: String) {
        let fingerprints: [UInt64] = (0..<UInt64(600)).map { j in
            switch placement {
            case "first bucket": Self.fingerprint(product: j)
            case "last bucket": Self.fingerprint(product: UInt64.max - j)
            default: mix(j)
            }
        }
        var map = FingerprintMap()
        var model: [UInt64: Int] = [:]
        var random = SplitMix64(seed: 20)
        for step in 0..<20_000 {
            let fingerprint = fingerprints[Int(random.next() % 600)]
            if random.next() % 3 == 0 {
                #expect(map.removeValue(for: fingerprint) == model.removeValue(forKey: fingerprint))
            } else {
                let value = Int(random.next() % 1_000_000)
                map[fingerprint] = value
                model[fingerprint] = value
            }
            if step % 97 == 0 || step == 19_999 {
                #expect(map.count == model.count)
                for fingerprint in fingerprints {
                    #expect(map[fingerprint] == model[fingerprint])
                    #expect(map.contains(fingerprint) == (model[fingerprint] != nil))
                }
            }
        }
    }

    @Test("grows and keeps every value; removeAll empties it")
    func grows() {
        var map = FingerprintMap()
        for key in 0..<10_000 { map[mix(UInt64(key))] = key }
        #expect(map.count == 10_000)
        #expect((0..<10_000).allSatisfy { map[mix(UInt64($0))] == $0 })
        for key in stride(from: 0, to: 10_000, by: 2) { map[mix(UInt64(key))] = nil }
        #expect(map.count == 5_000)
        #expect((0..<10_000).allSatisfy { map.contains(mix(UInt64($0))) == ($0 % 2 == 1) })
        map.removeAll()
        #expect(map.count == 0 && !map.contains(mix(1)))
    }
}
