/// Runs an app model for a number of users and writes what the app asked for
/// as a trace. Deterministic: the same seed and environment give the same
/// trace, byte for byte.
public enum Recorder {
    /// Users start spread over this many minutes (a week), so feeds move on between them.
    public static let spanMinutes = 7 * 24 * 60

    public struct Summary: Sendable, Equatable {
        public var events = 0
        public var imageRequests = 0
        public var apiRequests = 0
    }

    /// Records `sessions` users; with several apps, session k is a user of app k mod count (the "all apps" mix).
    public static func record(
        _ apps: [AppName], sessions: Int, seed: UInt64, environment: any AppEnvironment,
        to path: String, generator: String, progress: ((Int) -> Void)? = nil
    ) async throws -> Summary {
        let models = apps.map(\.model)
        let header = TraceHeader(
            app: models.count == 1 ? models[0].name : "all", modelVersion: models.map(\.modelVersion).joined(separator: "."),
            seed: seed, sessions: sessions, generator: generator)
        let writer = try TraceWriter(path: path, header: header)
        var summary = Summary()
        var nextID = 0
        var slots = SeededRandom(seed: seed)
        let slot = Double(spanMinutes) / Double(max(sessions, 1))
        for number in 1...max(sessions, 1) {
            let model = models[(number - 1) % models.count]
            let startMinute = (Double(number - 1) + slots.unit()) * slot
            let session = UserSession(
                environment: environment, behaviour: model.behaviour, random: SeededRandom(seed: seed, stream: UInt64(number)),
                startClock: Int(startMinute * 60_000),
                nextRequestID: { nextID += 1; return nextID },
                sink: { event in
                    summary.events += 1
                    switch event.kind {
                    case .image: summary.imageRequests += 1
                    case .api: summary.apiRequests += 1
                    default: break
                    }
                    try writer.append(event)
                })
            try session.emit(.session(number))
            try await model.run(session)
            progress?(number)
        }
        try writer.close()
        return summary
    }
}
