import CacheSimulation
import Foundation
import Workloads

/// Per request of a live replay, where live, the simulator in observed order and the in-flight
/// model answered it, as CSV (`replay --save-answers`), and with a network, the time to image
/// live and in the model (milliseconds; empty where none) and when each side asked for it
/// (milliseconds: live since the replay started, the model on its clock): the requests behind the model's error, and two live
/// runs compared request by request (BENCHMARKS.md, "The in-flight model").
public enum ReplayAnswersFile {
    public static let header = "request,live,observed order,model,live ms,model ms,live asked ms,model asked ms"

    /// Each side's times: time to image in microseconds, when asked in nanoseconds.
    struct Times {
        let toImage: [UInt32]
        let asked: [UInt64]
    }

    static func write(
        live: [CacheSimulator.Answer], observed: [CacheSimulator.Answer], model: [CacheSimulator.Answer],
        liveTimes: Times, modelTimes: Times, to path: String
    ) throws(SimulationTraceFile.FileError) {
        func milliseconds(_ times: [UInt32], _ request: Int) -> String {
            request < times.count && times[request] != TimeToImage.untimed ? String(Double(times[request]) / 1000) : ""
        }
        func asked(_ times: [UInt64], _ request: Int) -> String {
            request < times.count ? String(Double(times[request]) / 1e6) : ""
        }
        let timed = !modelTimes.toImage.isEmpty
        var text = header + "\n"
        for (request, live) in live.enumerated() {
            let observed = request < observed.count ? "\(observed[request])" : ""
            let model = request < model.count ? "\(model[request])" : ""
            let times = timed
                ? "\(milliseconds(liveTimes.toImage, request)),\(milliseconds(modelTimes.toImage, request)),"
                    + "\(asked(liveTimes.asked, request)),\(asked(modelTimes.asked, request))"
                : ",,,"
            text += "\(request),\(live),\(observed),\(model),\(times)\n"
        }
        do { try OutputFile.write(Data(text.utf8), to: path) } catch { throw .io(path: path, reason: error.description) }
    }
}
