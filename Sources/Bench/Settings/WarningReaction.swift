import ImagePipeline

/// A named memory-warning reaction, as the commands spell it.
public struct WarningReaction: Hashable, Sendable, CustomStringConvertible {
    public let policy: MemoryPressurePolicy
    public var description: String { policy.warning.description }

    public init(_ reaction: MemoryPressureReaction) {
        policy = MemoryPressurePolicy(warning: reaction, critical: reaction == .ignore ? .ignore : .purgeAll)
    }

    /// `purge-all`, `trim-to-50%`, `trim-idle-30s`, `ignore`.
    public init?(name: String) {
        let lowered = name.lowercased()
        if lowered == "purge-all" { self.init(.purgeAll); return }
        if lowered == "ignore" { self.init(.ignore); return }
        if lowered.hasPrefix("trim-to-"), lowered.hasSuffix("%"), let percent = Double(lowered.dropFirst(8).dropLast()),
           (0...100).contains(percent) {
            self.init(.trimToFraction(percent / 100))
            return
        }
        if lowered.hasPrefix("trim-idle-"), lowered.hasSuffix("s"), let seconds = Double(lowered.dropFirst(10).dropLast()), seconds >= 0 {
            self.init(.trimIdle(seconds: seconds))
            return
        }
        return nil
    }

    public static let standard = [WarningReaction(.purgeAll), WarningReaction(.trimToFraction(0.5)), WarningReaction(.trimIdle(seconds: 30))]
}
