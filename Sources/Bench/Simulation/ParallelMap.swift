import Foundation
import ImagePipeline

/// Runs independent pure jobs on all cores, keeping their order, with a
/// progress line. The simulations and bounds are single-threaded loops, so
/// one per core is the fastest way through a matrix.
enum ParallelMap {
    static func run<Input: Sendable, Output: Sendable>(
        _ inputs: [Input], progress: ProgressLine, label: String, _ body: @Sendable (Input) -> Output
    ) -> [Output] {
        let results = Locked<[Output?]>(Array(repeating: nil, count: inputs.count))
        let done = Locked(0)
        DispatchQueue.concurrentPerform(iterations: inputs.count) { index in
            let output = body(inputs[index])
            results.withLock { $0[index] = output }
            let finished = done.withLock { $0 += 1; return $0 }
            progress.update("\(label): \(finished)/\(inputs.count)")
        }
        progress.finish()
        return results.withLock { $0.map { $0! } }
    }
}
