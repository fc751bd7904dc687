extension ImagePipeline {
    /// Invalidation generations, and which cached keys belong to which URL.
    struct InvalidationLedger {
        var generations: [String: UInt64] = [:]
        var variants: [String: Set<Variant>] = [:]
        var originalOf: [String: String] = [:]
        /// The number of memory keys at which the ledger next forgets those the memory
        /// tier no longer holds: twice what it kept last time, so each key is checked
        /// a bounded number of times on average, and no tier has to report its evictions.
        var forgetsAt = 4_096

        struct Variant: Hashable {
            let memory: String
            let disk: String
        }

        func generation(of original: String) -> UInt64 { generations[original] ?? 0 }

        mutating func remember(_ keys: Keys, stillHeld: (String) -> Bool) {
            variants[keys.original, default: []].insert(Variant(memory: keys.memory, disk: keys.diskThumbnail))
            originalOf[keys.memory] = keys.original
            guard originalOf.count >= forgetsAt else { return }
            for memoryKey in originalOf.keys where !stillHeld(memoryKey) { forget(memoryKey: memoryKey) }
            forgetsAt = max(4_096, 2 * originalOf.count)
        }

        /// Bumps the generation and hands back the cached forms to drop.
        mutating func invalidate(_ original: String) -> Set<Variant> {
            generations[original, default: 0] += 1
            let dropped = variants.removeValue(forKey: original) ?? []
            for variant in dropped { originalOf[variant.memory] = nil }
            return dropped
        }

        /// A memory entry left: keep the variant map from growing without bound.
        private mutating func forget(memoryKey: String) {
            guard let original = originalOf.removeValue(forKey: memoryKey) else { return }
            variants[original] = variants[original]?.filter { $0.memory != memoryKey }
            if variants[original]?.isEmpty == true { variants[original] = nil }
        }
    }
}
