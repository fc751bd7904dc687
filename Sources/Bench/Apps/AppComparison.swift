import ImagePipeline
import CacheSimulation

/// One preset's run on one app's workload: the figures a developer compares
/// between the app as shipped, the app with one defect fixed, and the fixed pipeline.
public struct AppComparisonRow: Codable, Sendable, Equatable {
    public var trace: String
    public var app: String
    /// The preset: "vanilladin-as-shipped", "fixed", …
    public var preset: String
    /// The one defect fixed in the as-shipped preset, or nil for a whole preset.
    public var fixedDefect: String?
    public var requests: Int
    /// Shares of requests answered from memory, from disk, and from either (`hitRatio`).
    public var memoryHitRatio: Double
    public var diskHitRatio: Double
    public var hitRatio: Double
    /// Pictures of another URL shown, and outdated pictures of the same URL.
    public var wrongImages: Int
    public var staleImages: Int
    /// Requests the app never answered (My Market's coalescer).
    public var unansweredRequests: Int
    /// Downloads of a picture the device had downloaded before.
    public var duplicateDownloads: Int
    public var originFetches: Int
    public var originBytes: Int
    /// The most decoded image bytes memory held at once, and the most bytes on disk.
    public var peakMemoryBytes: Int
    public var peakDiskBytes: Int
    /// Memory warnings, those after which memory got back to 90% of what it held, and the mean time it took.
    public var warnings: Int
    public var recoveredWarnings: Int
    public var meanRecoverySeconds: Double
    /// Entries a warning dropped that were downloaded again.
    public var warningRefetches: Int
    /// The phone it ran on (nil for none) and what the phone did: times it ended the app, per
    /// hour of use, the sessions it ended at least once of all sessions, the requests in flight
    /// then, and the highest footprint (the app's own, decoded images held and being decoded).
    public var device: String?
    public var processEnds: Int
    public var processEndsPerHour: Double
    public var interruptedSessions: Int
    public var sessions: Int
    public var lostRequests: Int
    public var peakFootprintBytes: Int
    /// Time to image on a network: the same pipeline run again with a clock
    /// (`SimulationConfiguration.network`), where time decides joins and landings; the row's other
    /// figures are the untimed run's, comparable with the live ports' and the policies'. nil without.
    public var timeToImage: TimeToImage?
    /// True for a pipeline file given to `apps --pipeline`, run beside the app's own; nil otherwise.
    public var givenPipeline: Bool?

    init(trace: String, app: String, preset: String, fixedDefect: String?, _ result: SimulationResult) {
        self.trace = trace
        self.app = app
        self.preset = preset
        self.fixedDefect = fixedDefect
        requests = result.requests
        memoryHitRatio = result.hitRatio
        hitRatio = result.combinedHitRatio
        diskHitRatio = result.combinedHitRatio - result.hitRatio
        wrongImages = result.wrongImages
        staleImages = result.staleImages
        unansweredRequests = result.unansweredRequests
        duplicateDownloads = result.duplicateDownloads
        originFetches = Int(result.originFetches.rounded())
        originBytes = result.bytesDownloaded
        peakMemoryBytes = result.peakMemoryCost
        peakDiskBytes = result.peakDiskBytes
        warnings = result.warnings.count
        recoveredWarnings = result.warnings.recovered
        meanRecoverySeconds = result.warnings.meanRecoverySeconds
        warningRefetches = result.warnings.refetches
        device = result.device?.device.name
        processEnds = result.device?.processEnds ?? 0
        processEndsPerHour = result.device?.processEndsPerHour ?? 0
        interruptedSessions = result.device?.interruptedSessions ?? 0
        sessions = result.device?.sessions ?? 0
        lostRequests = result.device?.lostRequests ?? 0
        peakFootprintBytes = result.device?.peakFootprintBytes ?? 0
    }
}

/// Runs each app's workload under its as-shipped presets, each of them with
/// one defect fixed at a time, and the fixed pipeline, in parallel.
public enum AppComparison {
    /// Rows per workload: each as-shipped preset, then it with each defect
    /// fixed, then the fixed pipeline, then each of `pipelines` (files a user gave). A workload of
    /// no known app (the mix) gives none. On `device` (by default the phones of the apps' years) unless it is nil; with
    /// a `network`, each row also has its time to image there (`AppComparisonRow.timeToImage`; the
    /// presets' loads at once are then the app's limit on requests waiting for images), its
    /// decodes and reads taking `costs`, its requests arriving as `arrivals` says.
    public static func run(
        _ workloads: [RecordedWorkload], device: DeviceModel? = .appsDefault, network: NetworkProfile? = nil,
        costs: DeviceCosts = .thisMachine, arrivals: SimulationConfiguration.Arrivals = .recorded, pipelines: [AppPreset] = [],
        progress: ProgressLine = ProgressLine()
    ) throws(PipelineFileError) -> [AppComparisonRow] {
        let fixed = try PresetLibrary.fixed()
        struct Cell: Sendable {
            let workload: Int
            let preset: AppPreset
            let label: String
            let defect: String?
        }
        var cells: [Cell] = []
        for (index, workload) in workloads.enumerated() {
            for preset in try PresetLibrary.asShipped(app: workload.header.app) {
                cells.append(Cell(workload: index, preset: preset, label: preset.name, defect: nil))
                for defect in preset.defects {
                    cells.append(Cell(workload: index, preset: preset.fixing(defect, as: fixed), label: preset.name, defect: defect.id))
                }
            }
            if cells.last?.workload == index {
                cells.append(Cell(workload: index, preset: fixed, label: fixed.name, defect: nil))
                cells += pipelines.map { Cell(workload: index, preset: $0, label: $0.name, defect: nil) }
            }
        }
        // Most fixes change only the configuration: each distinct trace is built once.
        struct Keyed: Hashable, Sendable {
            let workload: Int
            let shape: AppPreset.TraceShape
        }
        var seen = Set<Keyed>()
        let distinct = cells.map { Keyed(workload: $0.workload, shape: $0.preset.traceShape) }.filter { seen.insert($0).inserted }
        let built = ParallelMap.run(distinct, progress: progress, label: "apps: traces") { $0.shape.trace(of: workloads[$0.workload]) }
        let traces = Dictionary(uniqueKeysWithValues: zip(distinct, built))
        return ParallelMap.run(cells, progress: progress, label: "apps") { cell in
            let workload = workloads[cell.workload]
            let trace = traces[Keyed(workload: cell.workload, shape: cell.preset.traceShape)]!
            var configuration = cell.preset.configuration(on: device)
            configuration.device = device
            var row = AppComparisonRow(
                trace: workload.name, app: workload.header.app, preset: cell.label, fixedDefect: cell.defect,
                CacheSimulator.run(trace, configuration))
            row.givenPipeline = pipelines.contains { $0.name == cell.label } && cell.defect == nil ? true : nil
            if let network {
                configuration.network = network
                (configuration.deviceCosts, configuration.arrivals) = (costs, arrivals)
                row.timeToImage = CacheSimulator.run(trace, configuration).timeToImage
            }
            return row
        }
    }
}
