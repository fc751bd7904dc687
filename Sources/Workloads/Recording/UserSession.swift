import Foundation

/// One user's run through an app: the clock, the behaviour's random stream,
/// and the events it produces. App models drive it; it writes the trace.
public final class UserSession {
    public let environment: any AppEnvironment
    public let behaviour: UserBehaviour
    public var random: SeededRandom
    /// Milliseconds since this session (user) started.
    public private(set) var time = 0
    /// Milliseconds since the trace's epoch at which this user started.
    let startClock: Int
    /// Points and scale of the device (an iPhone 14 in portrait).
    public var screenWidth = 390.0
    public var screenHeight = 844.0
    public let scale = 3.0
    public private(set) var offline = false
    /// When this launch's memory warning (if any) arrives.
    var warningAt: Int?

    private let sink: (TraceEvent) throws -> Void
    private var nextRequestID: () -> Int
    private var facts: [String: ImageFacts] = [:]

    init(environment: any AppEnvironment, behaviour: UserBehaviour, random: SeededRandom, startClock: Int,
         nextRequestID: @escaping () -> Int, sink: @escaping (TraceEvent) throws -> Void) {
        self.environment = environment
        self.behaviour = behaviour
        self.random = random
        self.startClock = startClock
        self.nextRequestID = nextRequestID
        self.sink = sink
    }

    public func advance(milliseconds: Double) {
        time += max(0, Int(milliseconds.rounded()))
    }

    /// Requests an API page from `host` + `path`; the page arrives after a
    /// network round trip. Nil when offline (the app falls back to what it stored).
    public func api(host: String, path: String) async throws -> Data? {
        guard !offline else { return nil }
        try emit(.api(url: "https://\(host)\(path)"))
        let data = try await environment.get(path, clock: (startClock + time) / 60_000)
        advance(milliseconds: random.logNormal(median: 280, sigma: 0.4))
        return data
    }

    /// Learns what `urls` serve (before they are requested).
    public func prepare(_ urls: some Sequence<String>) async throws {
        let unknown = Array(Set(urls.filter { facts[$0] == nil })).sorted()
        guard !unknown.isEmpty else { return }
        let found = try await environment.facts(for: unknown)
        for url in unknown {
            guard let fact = found[url] else { throw RecordingError.missingImage(url) }
            facts[url] = fact
        }
    }

    /// A screen asks for an image; returns the request's id.
    @discardableResult
    public func request(_ url: String, box: (width: Double, height: Double), priority: ImageRequestEvent.Priority = .visible) throws -> Int {
        guard let fact = facts[url] else { throw RecordingError.missingImage(url) }
        let id = nextRequestID()
        try emit(.image(ImageRequestEvent(
            id: id, url: url, content: fact.content, bytes: fact.bytes, width: fact.width, height: fact.height,
            format: fact.format, boxWidth: Int(box.width.rounded()), boxHeight: Int(box.height.rounded()),
            scale: scale, priority: priority)))
        return id
    }

    public func cancel(_ id: Int) throws { try emit(.cancel(id: id)) }

    public func memoryWarning(critical: Bool = false) throws {
        try emit(.memoryWarning(level: critical ? "critical" : "warning"))
    }

    /// The app is quit and started again after `minutes`: memory cold, disk warm.
    public func relaunch(after minutes: Double) throws {
        advance(milliseconds: minutes * 60_000)
        try emit(.relaunch)
    }

    public func setOffline(_ value: Bool) throws {
        guard value != offline else { return }
        offline = value
        try emit(.offline(value))
    }

    /// `url` now shows something else (or nothing): forget what it served.
    public func invalidate(_ url: String) throws {
        facts[url] = nil
        try emit(.invalidate(url: url))
    }

    public func send(method: String, path: String) async throws {
        try await environment.send(method: method, path: path)
        advance(milliseconds: random.logNormal(median: 300, sigma: 0.3))
    }

    /// A pause of about `seconds`.
    public func pause(_ seconds: Double) {
        advance(milliseconds: random.logNormal(median: seconds * 1000, sigma: 0.6))
    }

    func emit(_ kind: TraceEventKind) throws {
        try sink(TraceEvent(time: time, kind))
    }
}
