import ImagePipeline

extension RecordedWorkload {
    /// The workload as the simulator sees it under one key strategy, with the
    /// pipeline's keys: memory keys from the URL and box, disk keys of the
    /// original from the URL alone and of the re-encoded thumbnail from the URL,
    /// box and `thumbnailFormat`; each key string computed once per distinct
    /// (URL, box) and interned; ground truth and miss outcomes per request.
    /// A request the app cancelled within `cancelWindowMilliseconds` stores nothing on a miss.
    /// The pipeline's choices are the defaults; an app that cached otherwise (the
    /// as-shipped presets) names its disk key, what its memory entries cost, and
    /// the format it re-encodes originals to on disk.
    public func simulationTrace(
        strategy: CacheKeyStrategy, cancelWindowMilliseconds: Int = .max,
        thumbnailFormat: EncodedFormat = ImagePipeline.Configuration.defaultThumbnailDiskFormat,
        diskStrategy: CacheKeyStrategy? = nil, memoryCost: MemoryCost = .thumbnail, originalDiskFormat: EncodedFormat? = nil
    ) -> SimulationTrace {
        simulationTraceAndKeys(
            strategy: strategy, cancelWindowMilliseconds: cancelWindowMilliseconds, thumbnailFormat: thumbnailFormat,
            diskStrategy: diskStrategy, memoryCost: memoryCost, originalDiskFormat: originalDiskFormat
        ).trace
    }

    /// What one memory entry costs.
    public enum MemoryCost: String, Sendable, Hashable, CaseIterable {
        /// The decoded thumbnail, by `ThumbnailCost`: what `ImagePipeline` holds.
        case thumbnail
        /// The whole original decoded at 4 bytes a pixel: a `UIImage` made from the downloaded data.
        case decodedOriginal
    }

    /// The simulation trace and its memory keys as strings, by key id (what `CacheReplay` hands a cache of your own).
    func simulationTraceAndKeys(
        strategy: CacheKeyStrategy, cancelWindowMilliseconds: Int = .max,
        thumbnailFormat: EncodedFormat = ImagePipeline.Configuration.defaultThumbnailDiskFormat,
        diskStrategy: CacheKeyStrategy? = nil, memoryCost: MemoryCost = .thumbnail, originalDiskFormat: EncodedFormat? = nil
    ) -> (trace: SimulationTrace, memoryKeys: [String]) {
        var trace = SimulationTrace()
        var memoryKeys: [String] = []
        trace.reserveCapacity(requests.count)
        var memoryIDs: [String: TraceKey] = [:], diskIDs: [String: TraceKey] = [:]
        var memoryKeyOfPair: [Int64: TraceKey] = [:], thumbnailKeyOfPair: [Int64: TraceKey] = [:]
        var diskKeyOfURL = [TraceKey](repeating: -1, count: urls.count)
        var memoryKeysOfURL = [[TraceKey]](repeating: [], count: urls.count)
        var diskKeysOfURL = [[TraceKey]](repeating: [], count: urls.count)
        let (hostOfURL, hostNames) = hosts()
        trace.hostNames = hostNames
        let processing = boxes.map { ProcessingOptions($0) }
        let thumbnailProcessing = boxes.map { ProcessingOptions($0, format: thumbnailFormat.imageFormat) }
        let diskBase = diskStrategy ?? strategy
        let diskStrategy = diskBase.withoutProcessing, thumbnailStrategy = diskBase.withProcessing

        func diskID(_ key: String) -> TraceKey {
            if let slot = diskIDs[key] { return slot }
            let slot = trace.addDiskKey(entryOverhead: DiskCache.entryOverhead(forKey: key))
            diskIDs[key] = slot
            return slot
        }

        func memoryKey(url: Int32, box: Int32) -> TraceKey {
            let pair = Int64(url) << 32 | Int64(box)
            if let slot = memoryKeyOfPair[pair] { return slot }
            let key = strategy.key(for: urls[Int(url)], processing: processing[Int(box)])
            let slot = memoryIDs[key] ?? {
                let slot = trace.addKey(fingerprint: key.cacheFingerprint)
                memoryIDs[key] = slot
                memoryKeys.append(key)
                return slot
            }()
            memoryKeyOfPair[pair] = slot
            memoryKeysOfURL[Int(url)].append(slot)
            return slot
        }
        func diskKey(url: Int32) -> TraceKey {
            if diskKeyOfURL[Int(url)] >= 0 { return diskKeyOfURL[Int(url)] }
            let slot = diskID(diskStrategy.key(for: urls[Int(url)]))
            diskKeyOfURL[Int(url)] = slot
            diskKeysOfURL[Int(url)].append(slot)
            return slot
        }
        func thumbnailKey(url: Int32, box: Int32) -> TraceKey {
            let pair = Int64(url) << 32 | Int64(box)
            if let slot = thumbnailKeyOfPair[pair] { return slot }
            let slot = diskID(thumbnailStrategy.key(for: urls[Int(url)], processing: thumbnailProcessing[Int(box)]))
            thumbnailKeyOfPair[pair] = slot
            diskKeysOfURL[Int(url)].append(slot)
            return slot
        }

        var nextEvent = 0
        for (index, request) in requests.enumerated() {
            while nextEvent < events.count, events[nextEvent].beforeRequest <= index {
                append(events[nextEvent], to: &trace, memoryKeysOfURL: memoryKeysOfURL, diskKeysOfURL: diskKeysOfURL)
                nextEvent += 1
            }
            let outcome: SimulationTrace.MissOutcome =
                request.offline ? .offline
                : (request.cancelledAfter.map { $0 <= cancelWindowMilliseconds } ?? false) ? .cancelled : .store
            let thumbnail = thumbnailCost(of: request)
            let cost = switch memoryCost {
            case .thumbnail: thumbnail.bytes
            case .decodedOriginal: Int(request.width) * Int(request.height) * 4
            }
            trace.append(
                key: memoryKey(url: request.url, box: request.box), cost: cost, size: request.bytes, time: request.time,
                detail: .init(
                    diskKey: diskKey(url: request.url), diskThumbnailKey: thumbnailKey(url: request.url, box: request.box),
                    thumbnailBytes: thumbnail.estimatedEncodedBytes(as: thumbnailFormat),
                    originalDiskBytes: originalDiskFormat.map { wholeImageCost(of: request).estimatedEncodedBytes(as: $0) },
                    decodeWork: decodeWork(of: request), content: request.content, url: request.url, host: hostOfURL[Int(request.url)], outcome: outcome))
        }
        while nextEvent < events.count {
            append(events[nextEvent], to: &trace, memoryKeysOfURL: memoryKeysOfURL, diskKeysOfURL: diskKeysOfURL)
            nextEvent += 1
        }
        return (trace, memoryKeys)
    }

    /// Each URL's host id, and each host id's authority (`host(of:)`), ids in order of the
    /// URLs: the hosts a trace's requests go to, and a live replay's origin listeners.
    public func hosts() -> (ofURL: [Int32], names: [String]) {
        var ids: [Substring: Int32] = [:]
        var names: [String] = []
        let ofURL = urls.map { url in
            let host = Self.host(of: url)
            if let id = ids[host] { return id }
            ids[host] = Int32(names.count)
            names.append(String(host))
            return Int32(names.count - 1)
        }
        return (ofURL, names)
    }

    /// The authority of a URL (host and port), where connections are pooled; the whole text
    /// when it has no "//".
    static func host(of url: String) -> Substring {
        guard let start = url.range(of: "//")?.upperBound else { return Substring(url) }
        let rest = url[start...]
        let authority = rest[..<(rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex)]
        return authority.split(separator: "@").last ?? authority
    }

    private func append(_ event: Event, to trace: inout SimulationTrace, memoryKeysOfURL: [[TraceKey]], diskKeysOfURL: [[TraceKey]]) {
        switch event.kind {
        case .memoryWarning(let level): trace.appendMemoryWarning(level)
        case .relaunch: trace.appendReset(newDevice: false)
        case .newDevice: trace.appendReset(newDevice: true)
        case .invalidate(let url):
            trace.appendInvalidation(memory: memoryKeysOfURL[Int(url)], disk: diskKeysOfURL[Int(url)])
        }
    }
}
