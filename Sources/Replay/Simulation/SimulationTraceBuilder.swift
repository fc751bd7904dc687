import ImagePipeline

extension RecordedWorkload {
    /// The workload as the simulator sees it under one key strategy: memory keys
    /// from the URL and box (the pipeline's memory key), disk keys from the URL
    /// alone (originals on disk), each key string computed once per distinct
    /// (URL, box) and interned; ground truth and miss outcomes per request.
    /// A request the app cancelled within `cancelWindowMilliseconds` stores nothing on a miss.
    public func simulationTrace(strategy: CacheKeyStrategy, cancelWindowMilliseconds: Int = .max) -> SimulationTrace {
        var trace = SimulationTrace()
        trace.reserveCapacity(requests.count)
        var memoryIDs: [String: Slot] = [:], diskIDs: [String: Slot] = [:]
        var memoryKeyOfPair: [Int64: Slot] = [:]
        var diskKeyOfURL = [Slot](repeating: -1, count: urls.count)
        var memoryKeysOfURL = [[Slot]](repeating: [], count: urls.count)
        let processing = boxes.map { ProcessingOptions($0) }
        let diskStrategy = strategy.withoutProcessing

        func memoryKey(url: Int32, box: Int32) -> Slot {
            let pair = Int64(url) << 32 | Int64(box)
            if let slot = memoryKeyOfPair[pair] { return slot }
            let key = strategy.key(for: urls[Int(url)], processing: processing[Int(box)])
            let slot = memoryIDs[key] ?? {
                let slot = trace.addKey(fingerprint: key.cacheFingerprint)
                memoryIDs[key] = slot
                return slot
            }()
            memoryKeyOfPair[pair] = slot
            memoryKeysOfURL[Int(url)].append(slot)
            return slot
        }
        func diskKey(url: Int32) -> Slot {
            if diskKeyOfURL[Int(url)] >= 0 { return diskKeyOfURL[Int(url)] }
            let key = diskStrategy.key(for: urls[Int(url)])
            let slot = diskIDs[key] ?? {
                let slot = trace.addDiskKey()
                diskIDs[key] = slot
                return slot
            }()
            diskKeyOfURL[Int(url)] = slot
            return slot
        }

        var nextEvent = 0
        for (index, request) in requests.enumerated() {
            while nextEvent < events.count, events[nextEvent].beforeRequest <= index {
                append(events[nextEvent], to: &trace, memoryKeysOfURL: memoryKeysOfURL, diskKeyOfURL: diskKeyOfURL)
                nextEvent += 1
            }
            let outcome: SimulationTrace.MissOutcome =
                request.offline ? .offline
                : (request.cancelledAfter.map { $0 <= cancelWindowMilliseconds } ?? false) ? .cancelled : .store
            trace.append(
                key: memoryKey(url: request.url, box: request.box), cost: cost(of: request), size: request.bytes, time: request.time,
                detail: .init(diskKey: diskKey(url: request.url), content: request.content, source: request.url, outcome: outcome))
        }
        while nextEvent < events.count {
            append(events[nextEvent], to: &trace, memoryKeysOfURL: memoryKeysOfURL, diskKeyOfURL: diskKeyOfURL)
            nextEvent += 1
        }
        return trace
    }

    private func append(_ event: Event, to trace: inout SimulationTrace, memoryKeysOfURL: [[Slot]], diskKeyOfURL: [Slot]) {
        switch event.kind {
        case .memoryWarning(let level): trace.appendPressure(level)
        case .relaunch: trace.appendReset(newDevice: false)
        case .newSession: trace.appendReset(newDevice: true)
        case .invalidate(let url):
            let disk = diskKeyOfURL[Int(url)]
            trace.appendInvalidation(memory: memoryKeysOfURL[Int(url)], disk: disk >= 0 ? [disk] : [])
        }
    }
}
