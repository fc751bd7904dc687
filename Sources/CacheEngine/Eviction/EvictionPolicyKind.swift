/// The eviction policies a cache or a simulation can be built with, by name.
public enum EvictionPolicyKind: Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case lru, fifo, clock, sieve
    /// S3-FIFO with the hits an entry needs in the small queue to move to main (1 or 2).
    case s3fifo(moveToMainThreshold: Int)
    case wTinyLFU
    /// W-TinyLFU as libCacheSim builds it (window drained first, SLRU main, counting Bloom filter).
    case wTinyLFULibCacheSim
    /// GDSF weighing misses by bytes to download, or uniformly (GDSF(1), as libCacheSim's).
    case gdsf(missCost: GDSFPolicy.MissCost)
    case arc, twoQ, lirs
    /// A real Foundation NSCache (the apps' choice), for comparison.
    case nsCache
    /// A policy written outside this package; not among `allCases`, nor parsed by `init?(name:)`.
    case custom(CustomEvictionPolicy)

    /// Every built-in kind and the name `description` prints and `init?(name:)` reads, in the order
    /// reports list them. A policy added to the package is its file (the policy and its
    /// `BoxedPolicy` box), its case above, its line here and its line in `withPolicy`.
    static let named: [(kind: EvictionPolicyKind, name: String)] = [
        (.lru, "lru"), (.fifo, "fifo"), (.clock, "clock"), (.sieve, "sieve"),
        (.s3fifo(moveToMainThreshold: 1), "s3fifo"), (.s3fifo(moveToMainThreshold: 2), "s3fifo-2"),
        (.wTinyLFU, "w-tinylfu"), (.wTinyLFULibCacheSim, "w-tinylfu-libcachesim"),
        (.gdsf(missCost: .download), "gdsf"), (.gdsf(missCost: .uniform), "gdsf-1"),
        (.arc, "arc"), (.twoQ, "2q"), (.lirs, "lirs"), (.nsCache, "nscache"),
    ]

    public static let allCases: [EvictionPolicyKind] = named.map(\.kind)

    /// Whether `MemoryCache` reads this policy's hits without the lock unless its configuration
    /// says. LRU takes the lock for every hit: its locked form was faster on one thread on every
    /// stream measured, and its lock-free form's two threads did not reach 1.3× one thread
    /// (BENCHMARKS.md, "Against Nuke's `Cache` as it ships, and the locked form").
    public var readsHitsLockFreeByDefault: Bool { self != .lru }

    /// Variants kept to check this package's figures against other tools', not to deploy, each for
    /// a reason: libCacheSim's LIRS (it admits no object above 1 % of the cache, so few images) and
    /// W-TinyLFU (its own window and filter, not Caffeine's), S3-FIFO with libCacheSim's move
    /// threshold of 2, GDSF with every miss costing 1 (libCacheSim's, blind to download sizes).
    public var isReferenceVariant: Bool {
        switch self {
        case .lirs, .wTinyLFULibCacheSim, .s3fifo(moveToMainThreshold: 2), .gdsf(missCost: .uniform): true
        default: false
        }
    }

    /// The policies an app would deploy: every built-in one but the reference variants.
    public static var deployable: [EvictionPolicyKind] { allCases.filter { !$0.isReferenceVariant } }

    /// Parses the names `description` prints ("lru", "s3fifo", "s3fifo-2", "w-tinylfu", "gdsf-1", "2q", …).
    public init?(name: String) {
        let name = name.lowercased()
        guard let kind = Self.named.first(where: { $0.name == name })?.kind else {
            if name == "s3fifo-1" { self = .s3fifo(moveToMainThreshold: 1); return }
            return nil
        }
        self = kind
    }

    public var description: String {
        if case .custom(let policy) = self { return policy.name }
        if let named = Self.named.first(where: { $0.kind == self }) { return named.name }
        // A parameter no built-in variant uses (S3-FIFO moving after 3 hits).
        if case .s3fifo(let threshold) = self { return "s3fifo-\(threshold)" }
        return "unnamed"
    }

    /// Builds the policy and hands it to `visitor` as its concrete type, so the
    /// visitor's generic code is specialised per policy (no existential calls
    /// in simulation loops).
    @inlinable
    public func withPolicy<Visitor: EvictionPolicyVisitor>(
        limits: CacheLimits, _ visitor: Visitor
    ) -> Visitor.Result {
        switch self {
        case .lru: visitor.visit(LRUPolicy(limits: limits))
        case .fifo: visitor.visit(FIFOPolicy(limits: limits))
        case .clock: visitor.visit(CLOCKPolicy(limits: limits))
        case .sieve: visitor.visit(SIEVEPolicy(limits: limits))
        case .s3fifo(let threshold): visitor.visit(S3FIFOPolicy(limits: limits, moveToMainThreshold: threshold))
        case .wTinyLFU: visitor.visit(WTinyLFUPolicy(limits: limits))
        case .wTinyLFULibCacheSim: visitor.visit(LibCacheSimWTinyLFUPolicy(limits: limits))
        case .gdsf(let missCost): visitor.visit(GDSFPolicy(limits: limits, missCost: missCost))
        case .arc: visitor.visit(ARCPolicy(limits: limits))
        case .twoQ: visitor.visit(TwoQPolicy(limits: limits))
        case .lirs: visitor.visit(LIRSPolicy(limits: limits))
        case .nsCache: visitor.visit(NSCachePolicy(limits: limits))
        case .custom(let policy): policy.withPolicy(limits: limits, visitor)
        }
    }
}

/// Generic code that runs on whichever concrete policy a kind names.
public protocol EvictionPolicyVisitor {
    associatedtype Result
    func visit<Policy: EvictionPolicy>(_ policy: Policy) -> Result
}
