import ImagePipeline

/// The settings the bench uses when a command is not told otherwise: the
/// pipeline's defaults, so "default configuration" means what a user gets.
/// (Here rather than in `Bench`, so the tier benchmarks build without the network stack.)
public enum ReplayDefaults {
    /// `ImagePipeline.Configuration`'s memory limit.
    public static let memoryBytes = 100 << 20
    /// A disk tier of 150 MB, Nuke's `DataCache` default.
    public static let diskBytes = 150_000_000
    public static let keyStrategy = ImagePipeline.Configuration().keyStrategy
    public static let diskPolicy = ImagePipeline.Configuration().diskPolicy
    public static let policy = EvictionPolicyKind.lru
}
