@testable import CacheEngine

/// Drives a policy directly with named keys A, B, C… (slot = letter index,
/// fingerprint = slot) and records what it evicts.
struct PolicyHarness<Policy: EvictionPolicy> {
    var policy: Policy
    private(set) var evicted: [String] = []

    init(_ policy: Policy) { self.policy = policy }

    static func slot(_ name: String) -> Slot { letterSlot(name) }
    static func name(_ slot: Slot) -> String { letterName(slot) }

    /// Inserts `name` with a cost; returns whether it was admitted.
    @discardableResult
    mutating func insert(_ name: String, cost: Int = 1, missCost: Int = 1) -> Bool {
        let slot = Self.slot(name)
        var victims: [String] = []
        let admitted = policy.insert(
            NewEntry(slot: slot, cost: cost, fingerprint: UInt64(slot) &* 0x9E37_79B9_7F4A_7C15, missCost: missCost)
        ) { victims.append(Self.name($0)) }
        evicted += victims
        return admitted
    }

    mutating func hit(_ names: String...) {
        for name in names {
            var victims: [String] = []
            policy.recordHit(Self.slot(name)) { victims.append(Self.name($0)) }
            evicted += victims
        }
    }

    /// Inserts each name in turn with unit cost.
    mutating func insertAll(_ names: String...) {
        for name in names { insert(name) }
    }

    func resident(_ names: String...) -> Bool {
        names.allSatisfy { policy.contains(Self.slot($0)) }
    }

    var residentNames: Set<String> {
        Set((0..<26).map { Slot($0) }.filter { policy.contains($0) }.map(letterName))
    }
}

/// Room for exactly `entries` unit-cost entries, with no per-entry cap.
func unitLimits(_ entries: Int) -> CacheLimits {
    CacheLimits(costLimit: entries, maxEntryFraction: 1)
}

func letterSlot(_ name: String) -> Slot { Slot(name.unicodeScalars.first!.value - 65) }
func letterName(_ slot: Slot) -> String { String(UnicodeScalar(UInt8(slot + 65))) }
