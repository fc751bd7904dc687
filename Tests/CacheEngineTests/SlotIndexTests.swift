@testable import CacheEngine
import Testing

@Suite("SlotIndex")
struct SlotIndexTests {
    /// Random inserts and removals against a dictionary, with hashes drawn from a few
    /// values so probe runs are long, wrap around the table's end and are cut by
    /// removals: every slot is found by its hash, and nothing else is.
    @Test("finds what a dictionary finds, under heavy collisions", arguments: [3, 40, 1 << 20])
    func agreesWithDictionary(distinctHashes: Int) {
        let index = SlotIndex()
        var model: [Slot: Int] = [:]
        var random = SplitMix64(seed: UInt64(distinctHashes))
        for step in 0..<20_000 {
            let slot = Slot(random.next() % 600)
            if model[slot] != nil, random.next() % 2 == 0 {
                index.remove(slot, tag: SlotIndex.tag(model[slot]!))
                model[slot] = nil
            } else if model[slot] == nil {
                // Hashes near Int.max and below zero too: positions come from the low bits.
                let hash = Int(truncatingIfNeeded: random.next() % UInt64(distinctHashes) &* 0x9E37_79B9_7F4A_7C15)
                index.insert(slot, hash: hash)
                model[slot] = hash
            }
            if step % 97 == 0 || step == 19_999 {
                #expect(index.count == model.count)
                for (slot, hash) in model { #expect(index.find(hash: hash) { $0 == slot } == slot) }
                let absent = Slot(600 + step % 50)
                #expect(index.find(hash: model.values.first ?? 0) { $0 == absent } == nil)
            }
        }
    }

    @Test("grows and keeps every slot")
    func grows() {
        let index = SlotIndex()
        for slot in 0..<Slot(10_000) {
            index.insert(slot, hash: Int(slot) &* 31)
        }
        #expect(index.capacity >= 20_000)
        #expect((0..<Slot(10_000)).allSatisfy { slot in index.find(hash: Int(slot) &* 31) { $0 == slot } == slot })
        for slot in stride(from: 0, to: Slot(10_000), by: 2) { index.remove(slot, tag: SlotIndex.tag(Int(slot) &* 31)) }
        #expect(index.count == 5_000)
        #expect((0..<Slot(10_000)).allSatisfy { slot in (index.find(hash: Int(slot) &* 31) { $0 == slot } != nil) == (slot % 2 == 1) })
    }
}
