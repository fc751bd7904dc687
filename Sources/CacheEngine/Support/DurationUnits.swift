extension Duration {
    /// The whole duration in nanoseconds (saturating).
    public var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? (seconds < 0 ? .min : .max) : product &+ attoseconds / 1_000_000_000
    }

    /// This duration in seconds.
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }

    /// This duration in milliseconds.
    public var milliseconds: Double { Double(components.seconds) * 1e3 + Double(components.attoseconds) * 1e-15 }
}
