@testable import CacheEngine
import Testing

@Suite("SlotEntries")
struct SlotEntriesTests {
    @Test("an integer key's entry takes half a cache line and none spans two, as the storage grows")
    func entriesOnLines() {
        #expect(MemoryLayout<SlotEntries<Int, Int>.Entry>.stride == 32)
        let entries = SlotEntries<Int, Int>()
        var replaced: [UnsafeMutablePointer<SlotEntries<Int, Int>.Entry>] = []
        for key in 0..<1_000 {
            let (slot, old) = entries.store(key, key * 2, tag: UInt32(key), expiry: .max)
            if let old { replaced.append(old) }
            #expect(Int(slot) == key)
            let address = Int(bitPattern: entries.storage.load(ordering: .relaxed) + Int(slot))
            #expect(address % 64 + 32 <= 64, "entry \(slot) spans two lines")
        }
        for key in 0..<1_000 {
            let entry = entries[Slot(key)]
            #expect(entry.key == key && entry.value == key * 2 && entry.tag == UInt32(key) && entry.generation == UInt32(key + 1))
        }
        for old in replaced { old.deallocate() }
    }
}
