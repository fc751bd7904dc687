import HTTPImageLoading
import ImagePipeline
import OriginServer
import CacheSimulation

extension LiveReplay.Driver {
    /// The replay's report: what live measured, beside the simulator run in the order the
    /// pipeline took its decisions (the exact check) and the in-flight model that knows only
    /// the trace (its error).
    func report(
        wall: Double, originBefore: OriginServer.Statistics, fetcherBefore: HTTPImageFetcher.Statistics,
        samples: [LiveReplayReport.MemorySample], shaping: LinkShaping?
    ) throws -> LiveReplayReport {
        let measured = measurements.withLock { $0 }
        let totals = app.totals
        let configuration = SimulationConfiguration(
            limits: options.memoryLimits(bytes: app.memoryBytes), policy: options.policy, pressure: options.reaction.policy,
            disk: app.diskBytes.map { .init(byteLimit: $0, policy: options.diskPolicy) }, inFlight: options.concurrency,
            stripes: options.stripes, device: options.device)
        var model = configuration
        model.deviceCosts = options.deviceCosts
        model.requestTimeout = options.requestTimeout
        if let network = options.network {
            model.network = network
            model.arrivals = .backToBack
        }
        let answered = CacheSimulator.answers(trace, model)
        let observed = recorder.order
        if let path = options.observedOrderPath { try ObservedOrderFile.write(observed, requests: trace.count, to: path) }
        let exact = CacheSimulator.answers(trace, configuration, observed: observed)
        if let path = options.answersPath {
            try ReplayAnswersFile.write(
                live: measured.answers, observed: exact.answers, model: answered.answers,
                liveTimes: .init(toImage: measured.times, asked: measured.asked),
                modelTimes: .init(toImage: answered.times, asked: answered.asked), to: path)
        }
        let simulated = answered.result
        let simulatedJoins = answered.answers.count { $0 == .joined }
        let exactDifferences = measured.differences(from: exact.answers)
        let requests = workload.requests.count
        let timeToImage = shaping.map {
            TimeAgreement(
                network: $0.network.description, method: $0.description, live: measured.times, liveAnswers: measured.answers,
                simulated: answered.times, simulatedAnswers: answered.answers)
        }
        let origin = self.origin.statistics, fetched = fetcher.http.statistics
        return LiveReplayReport(
            trace: workload.name, configuration: options.describe, requests: requests,
            answered: measured.latency.values.reduce(0) { $0 + Int($1.totalCount) }, failed: measured.failed, cancelled: measured.cancelled,
            wallSeconds: wall, requestsPerSecond: Double(requests) / max(wall, 1e-9),
            latency: Dictionary(uniqueKeysWithValues: measured.latency.map { ($0.key.rawValue, LatencySummary($0.value)) }),
            decode: LatencySummary(measured.decode),
            originRequests: origin.requests - originBefore.requests, originBytes: origin.bytesSent - originBefore.bytesSent,
            joinedWaiters: totals.joined, stoppedTransfers: fetched.cancelled - fetcherBefore.cancelled,
            peakResidentBytes: ProcessMetrics.peakResidentBytes,
            memoryHits: totals.memoryHits, diskHits: totals.diskHits, originLoads: totals.originLoads,
            liveHitRatio: Double(totals.memoryHits + totals.joined) / Double(max(requests, 1)),
            liveCombinedHitRatio: Double(totals.memoryHits + totals.joined + totals.diskHits) / Double(max(requests, 1)),
            simulatedHitRatio: simulated.hitRatio, simulatedCombinedHitRatio: simulated.combinedHitRatio,
            exact: .init(
                observedSteps: observed.count, differingRequests: exactDifferences.values.reduce(0, +),
                differences: exactDifferences),
            comparison: .init(
                liveMemoryHits: totals.memoryHits, simulatedMemoryHits: Int(simulated.hits) - simulatedJoins,
                liveDiskHits: totals.diskHits, simulatedDiskHits: simulated.diskHits,
                liveCancelled: measured.cancelled, simulatedCancelled: simulated.cancelledTransfers,
                liveOffline: fetcher.offlineRefusals.withLock { $0 }, simulatedOffline: simulated.offlineMisses,
                liveJoins: totals.joined, simulatedJoins: simulatedJoins,
                liveSharedDownloads: max(totals.originLoads - (fetched.succeeded - fetcherBefore.succeeded), 0),
                simulatedSharedDownloads: answered.sharedDownloads,
                differences: measured.differences(from: answered.answers)),
            memoryOverTime: samples,
            device: simulated.device.map { .init(liveProcessEnds: processEnds, simulated: $0) },
            timeToImage: timeToImage,
            calibration: DeviceCalibration.fitted(measured.decodes, reads: measured.reads, width: app.decodeWidth).map {
                .init(costs: $0, decodes: measured.decodes.count, medianError: DeviceCalibration.medianError(of: $0, on: measured.decodes))
            })
    }
}
