/// How urgent a memory warning is.
public enum MemoryPressureLevel: String, Sendable, Codable, CaseIterable {
    case warning, critical
}

/// What a cache does when a memory warning arrives.
public enum MemoryPressureReaction: Sendable, Hashable, CustomStringConvertible {
    /// Nothing.
    case ignore
    /// Drop everything (what the five apps did with `removeAllObjects`).
    case purgeAll
    /// Evict in policy order down to this fraction of the cost limit
    /// (AlamofireImage-style high/low water marks).
    case trimToFraction(Double)
    /// Drop entries not used for this many seconds, keep the working set.
    case trimIdle(seconds: Double)

    public var description: String {
        switch self {
        case .ignore: "ignore"
        case .purgeAll: "purge-all"
        case .trimToFraction(let fraction): "trim-to-\(Int((fraction * 100).rounded()))%"
        case .trimIdle(let seconds): "trim-idle-\(seconds.formatted())s"
        }
    }
}

/// A reaction per level.
public struct MemoryPressurePolicy: Sendable, Hashable {
    public var warning: MemoryPressureReaction
    public var critical: MemoryPressureReaction

    public init(warning: MemoryPressureReaction, critical: MemoryPressureReaction) {
        self.warning = warning
        self.critical = critical
    }

    /// What the apps did: everything goes on any warning.
    public static let purgeAll = MemoryPressurePolicy(warning: .purgeAll, critical: .purgeAll)

    public func reaction(to level: MemoryPressureLevel) -> MemoryPressureReaction {
        level == .warning ? warning : critical
    }
}

/// Anything that can give memory back when asked: the one interface a cache
/// implements to hear memory warnings.
public protocol MemoryPressureResponder: Sendable {
    func respond(to reaction: MemoryPressureReaction)
}

extension Double {
    fileprivate func formatted() -> String {
        self == rounded() ? String(Int(self)) : String(self)
    }
}
