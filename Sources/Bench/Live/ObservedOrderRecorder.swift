import CacheSimulation
import ImagePipeline

/// Collects a live replay's decisions, in the order the pipeline's tiers took them (each
/// is appended under the tier's lock, then under this one), and the events between them.
final class ObservedOrderRecorder: DecisionRecorder {
    private let log = Locked(ObservedOrder())

    func record(_ decision: PipelineDecision, request: Int, bytes: Int) {
        log.withLock { $0.append(.decision(decision, request: Int32(truncatingIfNeeded: request), bytes: bytes)) }
    }

    /// The trace's event at `index` is applied now (no request in flight).
    func event(_ index: Int) {
        log.withLock { $0.append(.event(Int32(index))) }
    }

    /// The device model warned the app, or ended it, at this request.
    func device(_ step: ObservedOrder.DeviceStep, request: Int) {
        log.withLock { $0.append(.device(step, request: Int32(request))) }
    }

    var order: ObservedOrder { log.withLock { $0 } }
}
