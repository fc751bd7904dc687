import ImagePipeline
import CacheSimulation

extension Recommendation {
    /// The recommended settings as one pipeline, for a pipeline file (`recommend --write-pipeline`):
    /// thumbnails keyed as recommended, the knee of memory under the chosen policy, cap and
    /// reaction, the knee of disk (none without a budget), one request at a time as every
    /// candidate was measured, and `ImagePipeline`'s coalescing and invalidation.
    public func pipeline(named name: String) -> AppPreset {
        var preset = AppPreset(name: name)
        preset.summary = "Recommended by imagecache-bench recommend for \(traces.joined(separator: ", ")) "
            + "(\(requests) requests, goal \(goal.rawValue)\(network.map { " on \($0)" } ?? "")\(device.map { ", on \($0.name)" } ?? ""))."
        preset.evidence = reasons.map { "\($0.setting) \($0.value): \($0.because)" }
        preset.memoryKey = CacheKeyStrategy(name: keyStrategy) ?? ReplayDefaults.keyStrategy
        preset.memoryLimits = CacheLimits(costLimit: memoryBytes, maxEntryFraction: maxEntryFraction)
        preset.policy = EvictionPolicyKind(name: policy) ?? ReplayDefaults.policy
        preset.pressure = WarningReaction(name: warningReaction)?.policy ?? preset.pressure
        preset.disk = diskBytes.map { .init(byteLimit: $0, policy: ReplayDefaults.diskPolicy) }
        return preset
    }
}
