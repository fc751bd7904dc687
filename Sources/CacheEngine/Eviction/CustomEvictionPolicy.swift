/// An eviction policy written outside this package, given a name and a way to
/// build it for a cache's limits. `EvictionPolicyKind.custom` carries one, so a
/// policy of your own runs in the live `MemoryCache` and in the simulator like
/// the built-in ones (Examples/BringYourOwn shows one).
///
/// Two custom policies are the same when their names are: the name is what
/// reports, results and `description` print.
public struct CustomEvictionPolicy: Sendable, Hashable {
    public let name: String
    @usableFromInline let make: @Sendable (CacheLimits) -> any EvictionPolicy

    /// - Parameters:
    ///   - name: what reports print; keep it distinct from the built-in names.
    ///   - make: a fresh, empty policy for the given limits (called once per cache or simulation run).
    public init(name: String, _ make: @escaping @Sendable (CacheLimits) -> any EvictionPolicy) {
        self.name = name
        self.make = make
    }

    /// Builds the policy and hands it to `visitor` opened to its concrete type. The
    /// visitor's code is not specialised for a type it could not see when it was
    /// compiled, so a custom policy runs through generic code: correct, slower.
    @inlinable
    func withPolicy<Visitor: EvictionPolicyVisitor>(limits: CacheLimits, _ visitor: Visitor) -> Visitor.Result {
        visitor.visit(make(limits))
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}
