/// What a run counts of its requests and where it says each was answered: one place for
/// both orders a run takes (the trace's, and the order a live replay observed), so a hit, a
/// disk read, a download, a request never shown are counted alike whichever took them.
struct RequestAccounting {
    var result: SimulationResult
    var hits = 0, byteHits = 0, bytesRequested = 0
    /// Per request, where it was answered; empty unless asked for.
    var answers: [CacheSimulator.Answer] = []
    /// Downloads a request shared with another size of its URL still downloading.
    var sharedDownloads = 0
    /// Per picture, whether this device has downloaded it before: a second download repeats it.
    private var downloadedBefore: [Bool]

    init(result: SimulationResult, pictures: Int) {
        self.result = result
        downloadedBefore = Array(repeating: false, count: pictures)
    }

    @inline(__always)
    mutating func answer(_ index: Int, _ answer: CacheSimulator.Answer) {
        if !answers.isEmpty { answers[index] = answer }
    }

    /// Answered from memory, or by joining a flight: a hit.
    @inline(__always)
    mutating func hit(_ index: Int, size: Int, as answer: CacheSimulator.Answer) {
        hits &+= 1
        byteHits &+= size
        self.answer(index, answer)
    }

    /// Answered from a disk entry.
    @inline(__always)
    mutating func diskHit(_ index: Int, size: Int) {
        result.diskHits += 1
        result.diskByteHits += size
        answer(index, .disk)
    }

    /// Downloaded from the origin: a repeat when this device downloaded the picture before.
    @inline(__always)
    mutating func downloaded(_ index: Int, picture: Int32) {
        if downloadedBefore[Int(picture)] { result.duplicateDownloads += 1 }
        downloadedBefore[Int(picture)] = true
        answer(index, .origin)
    }

    /// Never answered: a load My Market's coalescer dropped.
    mutating func unanswered(_ index: Int, size: Int) {
        result.unansweredRequests += 1
        result.unservedBytes += size
        answer(index, .unanswered)
    }

    /// Not shown: the device was offline (or the download failed).
    mutating func offline(_ index: Int, size: Int) {
        result.offlineMisses += 1
        result.unservedBytes += size
        answer(index, .offline)
    }

    /// Not shown: the app cancelled the request before its download.
    mutating func cancelled(_ index: Int, size: Int) {
        result.cancelledTransfers += 1
        result.unservedBytes += size
        answer(index, .cancelled)
    }

    /// A request answered with a hit that turns out never shown (its download failed, or
    /// the one it waited on): no longer a hit, and offline.
    mutating func hitWasOffline(_ index: Int, size: Int) {
        guard answers[index] != .offline else { return }
        if answers[index] == .joined {
            hits &-= 1
            byteHits &-= size
        }
        offline(index, size: size)
    }

    /// A request whose download timed out (on the clock): not shown, as an offline miss; one
    /// that had `joined` a flight is no longer a hit. Its download stays counted, as a live
    /// download that fails (`hitWasOffline`).
    mutating func timedOut(_ index: Int, size: Int, joined: Bool) {
        if joined {
            hits &-= 1
            byteHits &-= size
        }
        offline(index, size: size)
    }

    /// A request that never reached the screen (the app was ended), with those that joined it.
    mutating func lost(_ index: Int, joiners: Int = 0) {
        result.device?.lostRequests += 1 + joiners
        answer(index, .lost)
    }

    /// The picture shown against the one the request asked for: another URL's is wrong, an
    /// earlier version of its own URL's stale.
    @inline(__always)
    mutating func check(served: (content: Int32, url: Int32), truth: (content: Int32, url: Int32)) {
        guard served.content != truth.content else { return }
        if served.url == truth.url { result.staleImages += 1 } else { result.wrongImages += 1 }
    }

    /// A new device: nothing was downloaded on it yet.
    mutating func newDevice() {
        for index in downloadedBefore.indices { downloadedBefore[index] = false }
    }
}
