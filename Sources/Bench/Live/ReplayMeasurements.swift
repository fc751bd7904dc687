import Histogram
import ImagePipeline
import CacheSimulation

/// What a live replay measured: latency by where each answer came from, decode times,
/// outcomes, and per request where the pipeline answered it, in the simulator's terms.
struct ReplayMeasurements {
    var latency: [ImageResponse.Source: Histogram<UInt64>] = [:]
    var decode = Histogram<UInt64>.microseconds()
    var failed = 0
    var cancelled = 0
    var finished = 0
    /// Per request position (a waiter joined a flight; an origin answer was downloaded; a
    /// failure, an error shown as nothing, is offline's answer).
    var answers: [CacheSimulator.Answer]
    /// Each thumbnail made, for the device's calibration.
    var decodes: [DeviceCalibration.Decode] = []
    /// Each disk hit's time besides its decode.
    var reads: [DeviceCalibration.Read] = []
    /// Per request position, its time to image in microseconds (`TimeToImage.untimed`: not shown).
    var times: [UInt32]
    /// Per request position, when it was asked for, in nanoseconds since the replay started.
    var asked: [UInt64]

    init(requests: Int) {
        answers = Array(repeating: .unanswered, count: requests)
        times = Array(repeating: TimeToImage.untimed, count: requests)
        asked = Array(repeating: 0, count: requests)
    }

    /// Records request `position`'s outcome, `elapsed` microseconds after it was asked for a thumbnail fitting `box`.
    mutating func record(_ outcome: Result<ImageResponse, any Error>, box: ThumbnailRequest, position: Int, asked: UInt64, elapsed: UInt64) {
        finished += 1
        self.asked[position] = asked
        switch outcome {
        case .success(let response):
            latency[response.source, default: .microseconds()].record(elapsed)
            times[position] = UInt32(min(elapsed, UInt64(TimeToImage.untimed - 1)))
            if let decode = response.timings.decode { self.decode.record(UInt64(max(decode.seconds * 1e6, 1))) }
            // A join carries its flight's timings: counted once, by the request that decoded.
            if response.source == .disk || response.source == .origin, let took = response.timings.decode {
                let source = response.image.source, bytes = source.byteCount
                decodes.append(.init(
                    encodedBytes: bytes, decodedBytes: response.cost,
                    work: box.decodeWork(width: source.width, height: source.height, format: source.format), nanoseconds: took.seconds * 1e9))
                // A disk hit's time besides its decode and the wait for it (the clock's decode
                // queue has its own): the lookups, the queues' hops, the store.
                if response.source == .disk {
                    let besides = response.timings.total - took - (response.timings.decodeWait ?? .zero)
                    reads.append(.init(bytes: bytes, nanoseconds: besides.seconds * 1e9))
                }
            }
            answers[position] = switch response.source {
            case .memory: .memory
            case .joined: .joined
            case .disk: .disk
            case .origin: .origin
            }
        case .failure(is CancellationError):
            cancelled += 1
            answers[position] = .cancelled
        case .failure:
            failed += 1
            answers[position] = .offline
        }
    }

    /// The requests answered otherwise than `simulated`, counted per "live / simulated" pair.
    func differences(from simulated: [CacheSimulator.Answer]) -> [String: Int] {
        var differences: [String: Int] = [:]
        for (live, simulated) in zip(answers, simulated) where live != simulated {
            differences["\(live) / \(simulated)", default: 0] += 1
        }
        return differences
    }
}

extension Histogram<UInt64> {
    /// Microseconds from 1 µs to 10 minutes, three significant digits.
    static func microseconds() -> Histogram<UInt64> {
        Histogram(lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
    }
}
