import Foundation
import OriginServer
import Workloads

/// `fidelity`: each app dataset's images against the real API responses of its service.
public struct FidelityJob: Sendable {
    public var inputs = TraceInputs()
    /// The targets file.
    public var targets = "datasets/fidelity-targets.json"
    /// Measure the targets again on the API responses under this folder.
    public var measure: String?
    /// With `measure`: write the measured targets into `targets` once the run has succeeded.
    public var updatesTargets = false

    public init() {}

    public func validate() throws {
        if updatesTargets, measure == nil { throw UsageError("--update-targets writes what --measure DIR measured; give --measure") }
        var isFolder: ObjCBool = false
        if let measure, !FileManager.default.fileExists(atPath: measure, isDirectory: &isFolder) || !isFolder.boolValue {
            throw UsageError("--measure \(measure): no such folder; give the folder that holds the services' API responses")
        }
    }

    public func run(output: ResultsOutput) throws {
        try output.claim(inputs: inputs.inputPaths + [targets] + (measure.map { [$0] } ?? []))
        var compared = try readTargets(required: measure == nil)
        var measured: FidelityTargets?
        if let measure {
            let found = try FidelityTargets.measure(realData: measure, command: ResultsOutput.commandLine)
            guard !found.targets.isEmpty else {
                throw UsageError("--measure \(measure): no NewsAPI, Aladin, Unsplash or open-market responses (.json) in it; nothing was measured and \(targets) is as it was")
            }
            measured = found
            compared = compared?.replacing(with: found) ?? found
            print("fidelity: measured \(found.targets.count) targets for \(found.services.map(\.rawValue).joined(separator: ", ")) on \(measure)")
        }
        let loaded = try inputs.load()
        var results = BenchResults(command: ResultsOutput.commandLine)
        results.datasets = loaded.map(\.summary)
        guard let compared else { return }
        let model = try Fidelity.compare(ResponseSample(seed: 1), targets: compared)
        let datasets = Fidelity.compare(loaded, targets: compared)
        results.fidelity = model + datasets
        output.show("the origin's API pages (seed 1) against the real responses", ReportTables.fidelity(model))
        output.show("each app dataset's requests against its service's real responses", ReportTables.fidelity(datasets))
        if !output.json {
            for service in Service.allCases {
                for (statistics, reason) in Fidelity.notComparableOnRequests(service) {
                    print("\(service.rawValue): compared on the pages only, not on the datasets' requests: \(statistics.sorted().joined(separator: "; ")): \(reason)")
                }
            }
        }
        try output.finish(results)
        guard let measured else { return }
        guard updatesTargets else {
            print("fidelity: \(targets) is unchanged; --update-targets writes the measured targets into it")
            return
        }
        try OutputFile.write(Data(ResultsJSON.text(compared).appending("\n").utf8), to: targets)
        print("fidelity: wrote \(compared.targets.count) targets to \(targets) (\(measured.services.map(\.rawValue).joined(separator: ", ")) measured again)")
    }

    /// The targets file, or nil when it is missing and not `required`.
    private func readTargets(required: Bool) throws -> FidelityTargets? {
        guard FileManager.default.fileExists(atPath: targets) || required else { return nil }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: targets)) } catch {
            throw UsageError("--targets \(targets): cannot read (\(PlainFailure.clause(error))); make it with --measure DIR --update-targets, DIR a folder of the services' real API responses")
        }
        do { return try JSONDecoder().decode(FidelityTargets.self, from: data) } catch {
            throw UsageError("--targets \(targets): not a targets file (\(PlainFailure.clause(error)))")
        }
    }
}
