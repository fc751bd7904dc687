import CacheSimulation
import Foundation
import Workloads

/// Per request of a live replay, where live, the simulator in observed order and the in-flight
/// model answered it, as CSV (`replay --save-answers`): the requests behind the model's error, and
/// two live runs compared request by request (BENCHMARKS.md, "The in-flight model").
public enum ReplayAnswersFile {
    public static let header = "request,live,observed order,model"

    static func write(
        live: [CacheSimulator.Answer], observed: [CacheSimulator.Answer], model: [CacheSimulator.Answer], to path: String
    ) throws(SimulationTraceFile.FileError) {
        var text = header + "\n"
        for (request, live) in live.enumerated() {
            let observed = request < observed.count ? "\(observed[request])" : ""
            let model = request < model.count ? "\(model[request])" : ""
            text += "\(request),\(live),\(observed),\(model)\n"
        }
        do { try OutputFile.write(Data(text.utf8), to: path) } catch { throw .io(path: path, reason: error.description) }
    }
}
