import ImagePipeline

/// Replays a recorded workload through a `ReplayableCache` exactly as
/// `CacheSimulator` replays it through an eviction policy with no disk tier, the
/// workload's own memory warnings, invalidations ignored (your cache hears of
/// none) and one request at a time: so the figures of your cache and of the
/// built-in policies compare one to one.
///
/// Per request: look the key up; a hit is checked against the picture the key
/// was stored with (another URL's picture is a wrong image, an older one of the
/// same URL a stale image); on a miss the picture is downloaded and stored,
/// unless the app was offline or cancelled the request first.
public enum CacheReplay {
    public static func run<Cache: ReplayableCache>(
        _ workload: RecordedWorkload, keys strategy: CacheKeyStrategy = ReplayDefaults.keyStrategy,
        through cache: inout Cache, name: String
    ) -> SimulationResult {
        let (trace, keys) = workload.simulationTraceAndKeys(strategy: strategy)
        var result = SimulationResult(policy: name)
        var hits = 0, byteHits = 0, bytesRequested = 0, nextEvent = 0
        // The picture (content id, source URL) each key was stored with.
        var holds = [(content: Int32, url: Int32)](repeating: (-1, -1), count: trace.keyCount)
        for index in 0..<trace.count {
            while nextEvent < trace.events.count, trace.events[nextEvent].beforeRequest <= index {
                switch trace.events[nextEvent].kind {
                case .memoryWarning(let level):
                    result.warnings.count += 1
                    cache.memoryWarning(level)
                case .relaunch, .newDevice: cache.removeAll()
                case .invalidate: break
                }
                nextEvent += 1
            }
            let key = trace.keys[index], size = trace.sizes[index]
            let truth = (content: trace.contents[index], url: trace.urls[index])
            bytesRequested += size
            if cache.lookup(keys[Int(key)]) {
                hits += 1
                byteHits += size
                let served = holds[Int(key)]
                if served.content != truth.content {
                    if served.url == truth.url { result.staleImages += 1 } else { result.wrongImages += 1 }
                }
                continue
            }
            switch trace.outcomes[index] {
            case .offline:
                result.offlineMisses += 1
                result.unservedBytes += size
            case .cancelled:
                result.cancelledTransfers += 1
                result.unservedBytes += size
            case .store:
                if cache.store(keys[Int(key)], cost: trace.costs[index], downloadedBytes: size) { holds[Int(key)] = truth }
            }
        }
        result.requests = trace.count
        result.hits = Double(hits)
        result.byteHits = Double(byteHits)
        result.bytesRequested = bytesRequested
        return result
    }
}
