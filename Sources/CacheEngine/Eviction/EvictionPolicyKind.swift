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

    public static let allCases: [EvictionPolicyKind] = [
        .lru, .fifo, .clock, .sieve, .s3fifo(moveToMainThreshold: 1), .s3fifo(moveToMainThreshold: 2),
        .wTinyLFU, .wTinyLFULibCacheSim, .gdsf(missCost: .download), .gdsf(missCost: .uniform), .arc, .twoQ, .lirs, .nsCache,
    ]

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
        guard let kind = Self.allCases.first(where: { $0.description == name.lowercased() }) else {
            if name.lowercased() == "s3fifo-1" { self = .s3fifo(moveToMainThreshold: 1); return }
            return nil
        }
        self = kind
    }

    public var description: String {
        switch self {
        case .lru: "lru"
        case .fifo: "fifo"
        case .clock: "clock"
        case .sieve: "sieve"
        case .s3fifo(let threshold): threshold == 1 ? "s3fifo" : "s3fifo-\(threshold)"
        case .wTinyLFU: "w-tinylfu"
        case .wTinyLFULibCacheSim: "w-tinylfu-libcachesim"
        case .gdsf(let missCost): missCost == .download ? "gdsf" : "gdsf-1"
        case .arc: "arc"
        case .twoQ: "2q"
        case .lirs: "lirs"
        case .nsCache: "nscache"
        case .custom(let policy): policy.name
        }
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
