import CacheSimulation

extension ReplayDefaults {
    /// Memory sizes of the policy comparison: a small phone budget to the default.
    public static let comparedMemorySizes: [ByteSize] = [.bytes(8 << 20), .bytes(32 << 20), .bytes(memoryBytes)]
}
