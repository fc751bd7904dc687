/// What `recommend` optimises, and so how each choice is read: the knee of a curve and the
/// best of the candidates by this figure. Ties go to the smaller size, or the preferred
/// choice, within a margin: for hits a point count, for a time or bytes a share of the best.
public enum RecommendationGoal: String, Codable, Sendable, CaseIterable {
    /// Requests answered from memory (or either tier, for disk sizes).
    case hits
    /// The 95th percentile of time to image on the run's network (needs `--network`).
    case p95
    /// Bytes downloaded from the origin.
    case bytes

    /// What a measured choice scores: higher is better.
    func score(_ measured: some RecommendationMeasured) -> Double {
        switch self {
        case .hits: measured.hitRatio
        case .p95: -(measured.p95Milliseconds ?? .infinity)
        case .bytes: -Double(measured.bytesDownloaded)
        }
    }

    /// Whether `score` counts as `best`'s: within half a point (a knee) or a tenth (a tie) of
    /// the best hit ratio; within 5 % or 1 % of the best time or bytes.
    func isNear(_ score: Double, _ best: Double, knee: Bool) -> Bool {
        switch self {
        case .hits: score >= best - (knee ? Recommendation.kneeGain : 0.001)
        case .p95, .bytes: -score <= -best * (knee ? 1.05 : 1.01)
        }
    }

    /// The figure, for people.
    func describe(_ measured: some RecommendationMeasured) -> String {
        switch self {
        case .hits: String(format: "%.2f%% hit", measured.hitRatio * 100)
        case .p95: measured.p95Milliseconds.map { "p95 " + RunSummary.duration($0) } ?? "p95 unknown"
        case .bytes: ByteSize.format(measured.bytesDownloaded) + " downloaded"
        }
    }
}

/// What a recommendation's curve points and candidates measured.
public protocol RecommendationMeasured {
    var hitRatio: Double { get }
    /// The highest p95 time to image among the traces, on the run's network; nil without one.
    var p95Milliseconds: Double? { get }
    var bytesDownloaded: Int { get }
}

extension Recommendation.CurvePoint: RecommendationMeasured {}
extension Recommendation.Candidate: RecommendationMeasured {}

extension Recommendation.CurvePoint {
    init(_ bytes: Int, _ measured: Recommendation.Candidate) {
        self.init(bytes: bytes, hitRatio: measured.hitRatio, p95Milliseconds: measured.p95Milliseconds, bytesDownloaded: measured.bytesDownloaded)
    }
}
