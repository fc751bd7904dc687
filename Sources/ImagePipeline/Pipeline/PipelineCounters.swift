import Synchronization

/// The pipeline's outcome counts, one atomic each: a memory hit adds to one counter and
/// takes no lock (BENCHMARKS.md, "Measurements behind the code's shape"). Read while requests run,
/// the counts are each current but not a snapshot taken at one instant.
final class PipelineCounters: Sendable {
    enum Outcome {
        case memoryHit, memoryMiss, diskHit, originLoad, joined, failure, cancellation, staleDiscarded
    }

    private let memoryHits = Atomic<Int>(0)
    private let memoryMisses = Atomic<Int>(0)
    private let diskHits = Atomic<Int>(0)
    private let originLoads = Atomic<Int>(0)
    private let joined = Atomic<Int>(0)
    private let failures = Atomic<Int>(0)
    private let cancellations = Atomic<Int>(0)
    private let staleDiscarded = Atomic<Int>(0)

    @inline(__always)
    func count(_ outcome: Outcome) {
        switch outcome {
        case .memoryHit: memoryHits.wrappingAdd(1, ordering: .relaxed)
        case .memoryMiss: memoryMisses.wrappingAdd(1, ordering: .relaxed)
        case .diskHit: diskHits.wrappingAdd(1, ordering: .relaxed)
        case .originLoad: originLoads.wrappingAdd(1, ordering: .relaxed)
        case .joined: joined.wrappingAdd(1, ordering: .relaxed)
        case .failure: failures.wrappingAdd(1, ordering: .relaxed)
        case .cancellation: cancellations.wrappingAdd(1, ordering: .relaxed)
        case .staleDiscarded: staleDiscarded.wrappingAdd(1, ordering: .relaxed)
        }
    }

    var statistics: ImagePipeline.Statistics {
        var statistics = ImagePipeline.Statistics()
        statistics.memoryHits = memoryHits.load(ordering: .relaxed)
        statistics.requests = statistics.memoryHits + memoryMisses.load(ordering: .relaxed)
        statistics.diskHits = diskHits.load(ordering: .relaxed)
        statistics.originLoads = originLoads.load(ordering: .relaxed)
        statistics.joined = joined.load(ordering: .relaxed)
        statistics.failures = failures.load(ordering: .relaxed)
        statistics.cancellations = cancellations.load(ordering: .relaxed)
        statistics.staleDiscarded = staleDiscarded.load(ordering: .relaxed)
        return statistics
    }
}
