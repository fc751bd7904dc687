import CacheSimulation
import Foundation
import Workloads

/// Per request of a live replay, where live, the simulator in observed order and the in-flight
/// model answered it, as CSV (`replay --save-answers`), and with a network, the time to image
/// live and in the model (milliseconds; empty where none): the requests behind the model's error,
/// and two live runs compared request by request (BENCHMARKS.md, "The in-flight model").
public enum ReplayAnswersFile {
    public static let header = "request,live,observed order,model,live ms,model ms"

    static func write(
        live: [CacheSimulator.Answer], observed: [CacheSimulator.Answer], model: [CacheSimulator.Answer],
        liveTimes: [UInt32], modelTimes: [UInt32], to path: String
    ) throws(SimulationTraceFile.FileError) {
        func milliseconds(_ times: [UInt32], _ request: Int) -> String {
            request < times.count && times[request] != TimeToImage.untimed ? String(Double(times[request]) / 1000) : ""
        }
        let timed = !modelTimes.isEmpty
        var text = header + "\n"
        for (request, live) in live.enumerated() {
            let observed = request < observed.count ? "\(observed[request])" : ""
            let model = request < model.count ? "\(model[request])" : ""
            let times = timed ? "\(milliseconds(liveTimes, request)),\(milliseconds(modelTimes, request))" : ","
            text += "\(request),\(live),\(observed),\(model),\(times)\n"
        }
        do { try OutputFile.write(Data(text.utf8), to: path) } catch { throw .io(path: path, reason: error.description) }
    }
}
