import Hummingbird

/// A request's context at the origin, with the connection it came on: the emulated link
/// (`PacedDownlink`) charges a new connection its handshakes.
struct OriginRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The client's port, which names its connection while it is open.
    let connection: Int

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        connection = source.channel.remoteAddress?.port ?? 0
    }
}
