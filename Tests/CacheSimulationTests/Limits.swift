import CacheEngine

/// Room for exactly `entries` unit-cost entries, with no per-entry cap.
func unitLimits(_ entries: Int) -> CacheLimits { CacheLimits(costLimit: entries, maxEntryFraction: 1) }
func letterSlot(_ name: String) -> Slot { Slot(name.unicodeScalars.first!.value - 65) }
