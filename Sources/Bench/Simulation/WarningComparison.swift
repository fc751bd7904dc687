import ImagePipeline
import CacheSimulation

/// What one reaction to memory warnings cost on one workload, against the
/// same run with no warnings at all.
public struct WarningComparisonRow: Codable, Sendable {
    public var trace: String
    /// Where the warnings came from, as typed: "trace", "every:30s", "above:64MB".
    public var source: String
    public var reaction: String
    public var warnings: Int
    public var hitRatio: Double
    public var baselineHitRatio: Double
    /// Memory hit ratio lost to the warnings, in points of the baseline.
    public var hitRatioLoss: Double { baselineHitRatio - hitRatio }
    /// Entries dropped by a warning and downloaded again, and their bytes.
    public var refetches: Int
    public var refetchedBytes: Int
    /// Entries dropped by a warning that the disk tier gave back (decoded again, not downloaded).
    public var diskRereads: Int
    /// Bytes downloaded beyond the run without warnings.
    public var extraBytesDownloaded: Int
    public var recovered: Int
    public var meanRecoverySeconds: Double
    public var longestRecoverySeconds: Double
    /// On a phone (`--device`): times the system ended the app; nil without one.
    public var processEnds: Int? = nil
    /// On a network: time to image with this reaction and without warnings (both runs keep a clock).
    public var timeToImage: TimeToImage? = nil
    public var baselineTimeToImage: TimeToImage? = nil
}

public enum WarningComparison {
    public static func run(
        _ workloads: [RecordedWorkload], sources: [SimulationConfiguration.WarningSource], reactions: [WarningReaction],
        configuration: SimulationMatrix, progress: ProgressLine = ProgressLine()
    ) -> [WarningComparisonRow] {
        var baseline = configuration
        baseline.warnings = .none
        baseline.reactions = [WarningReaction(.ignore)]
        baseline.bounds = false
        let base = Dictionary(baseline.run(workloads, progress: progress).map { ($0.trace, $0.result) }) { first, _ in first }
        var rows: [WarningComparisonRow] = []
        for source in sources {
            var matrix = configuration
            matrix.warnings = source
            matrix.reactions = reactions
            matrix.bounds = false
            for row in matrix.run(workloads, progress: progress) {
                guard let baseline = base[row.trace] else { continue }
                let warnings = row.result.warnings
                rows.append(WarningComparisonRow(
                    trace: row.trace, source: source.description, reaction: row.reaction, warnings: warnings.count,
                    hitRatio: row.result.hitRatio, baselineHitRatio: baseline.hitRatio,
                    refetches: warnings.refetches, refetchedBytes: warnings.refetchedBytes, diskRereads: warnings.diskRereads,
                    extraBytesDownloaded: row.result.bytesDownloaded - baseline.bytesDownloaded,
                    recovered: warnings.recovered, meanRecoverySeconds: warnings.meanRecoverySeconds,
                    longestRecoverySeconds: warnings.longestRecoverySeconds, processEnds: row.result.device?.processEnds,
                    timeToImage: row.result.timeToImage, baselineTimeToImage: baseline.timeToImage))
            }
        }
        return rows
    }
}
