import CacheEngine

/// The in-flight model's downloads whose originals are not on disk yet, oldest first, and how
/// many per original: another size of a URL asked for meanwhile shares one. At most one at a
/// time: downloads are short next to decoding, and on the loopback replay a wider window shares
/// several times the downloads live shares (BENCHMARKS.md).
struct DownloadWindow {
    static let capacity = 1
    private var downloads: [(index: Int, original: TraceKey, stores: Bool)] = []
    private var start = 0
    /// Downloads running per original; empty when the model runs one request at a time.
    private var byOriginal: [Int32]

    init(originals: Int) { byOriginal = Array(repeating: 0, count: originals) }

    func isDownloading(_ original: TraceKey) -> Bool { byOriginal[Int(original)] > 0 }

    /// More downloads than the window holds: the oldest must land.
    var isOverCapacity: Bool { downloads.count - start > Self.capacity }

    /// The request whose download is the oldest running, if any.
    var oldestRequest: Int? { start < downloads.count ? downloads[start].index : nil }

    /// Request `index`'s download of `original` starts; `stores`: its original goes to disk.
    mutating func add(_ index: Int, original: TraceKey, stores: Bool) {
        downloads.append((index, original, stores))
        byOriginal[Int(original)] += 1
    }

    /// The oldest download finishes.
    mutating func removeOldest() -> (index: Int, stores: Bool) {
        let download = downloads[start]
        start += 1
        byOriginal[Int(download.original)] -= 1
        if start == downloads.count {
            downloads.removeAll(keepingCapacity: true)
            start = 0
        }
        return (download.index, download.stores)
    }

    /// Every running download stops and stores nothing (the app was ended).
    mutating func removeAll() {
        for download in downloads[start...] { byOriginal[Int(download.original)] -= 1 }
        downloads.removeAll(keepingCapacity: true)
        start = 0
    }
}
