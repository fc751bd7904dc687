import Foundation
import ImagePipeline

/// Turns a HAR file (what browser dev tools, WebPageTest, Browsertime, Charles, Fiddler and
/// mitmproxy export; plain or gzip-compressed, with or without a byte order mark) into a trace:
/// every picture response becomes an image request with its size and fetch time, every JSON
/// response an API page, and every other entry is skipped and counted by why (`SkipReason`).
/// Pictures are sized from the best evidence their entry holds (`PictureEvidence`, `SizeSource`);
/// with a body, the content id is a hash of its bytes, without one a hash of the URL's resource
/// identity (`URLNormalizer.resourceIdentity`). Pages become devices as `HARPages` says. A 304 of a
/// URL fetched earlier is a request of the same picture again: the tiers answer it as any other
/// (the browser's HTTP cache had it; the app's own tiers are what the trace measures).
public enum HARImporter {
    public struct Options: Sendable {
        /// Write the trace even when the HAR holds no picture or JSON response.
        public var allowsEmpty = false
        /// Refuse the whole file at the first damaged entry instead of skipping or sizing it.
        public var strict = false
        /// Keep every page in one session, whatever the pages say.
        public var oneSession = false

        public init(allowsEmpty: Bool = false, strict: Bool = false, oneSession: Bool = false) {
            self.allowsEmpty = allowsEmpty
            self.strict = strict
            self.oneSession = oneSession
        }
    }

    public struct Summary: Sendable, Equatable {
        public var entries = 0
        public var images = 0
        public var apiPages = 0
        /// 304s kept as requests of a picture fetched earlier (among `images`).
        public var revalidations = 0
        /// Entries not in the trace, by why.
        public var skipped: [SkipReason: Int] = [:]
        /// Picture requests by how they were sized.
        public var sizedBy: [SizeSource: Int] = [:]
        /// Entries with something damaged (skipped, or sized from their lengths), and the first few named.
        public var damagedEntries = 0
        public var damaged: [String] = []
        /// The devices the pages became, the relaunches (repeat views) among them, and how.
        public var devices = 1
        public var relaunches = 0
        public var mapping = "one session"

        public var skippedEntries: Int { skipped.values.reduce(0, +) }
        public var unknownSizes: Int { sizedBy[.unknown] ?? 0 }

        public init() {}
    }

    /// Writes the trace; a HAR with no picture or JSON response is refused unless `allowsEmpty`.
    /// The HAR is read one entry at a time (`HARStream`) and, when its entries come in each
    /// device's time order (as tools write them), each event is written as it is read, so memory
    /// does not grow with the number of entries; otherwise the file is read again, its events
    /// kept and sorted.
    public static func importFile(_ path: String, to output: String, generator: String, options: Options = Options()) throws -> Summary {
        let name = URL(fileURLWithPath: path).lastPathComponent
        let strict = options.strict
        var assembler: Assembler?
        var writer: SessionWriter?
        let read = try HARStream(path: path).forEachEntry(
            transform: { entry throws(ImportError) in try EntryReader.parse(entry, strict: strict) },
            entriesBegin: { header throws(ImportError) in
                let pages = HARPages(header, oneSession: options.oneSession)
                assembler = Assembler(pages: pages)
                writer = try SessionWriter(path: output, header: traceHeader(name, generator, devices: pages.devices))
            }
        ) { parsed throws(ImportError) in
            guard let placed = assembler?.place(parsed), let writing = writer else { return }
            if try !writing.append(placed) { writer = nil }  // out of order: read again below
        }
        try checkVersion(read.header.version)
        // The whole header may say more than what came before the entries (pages or a creator
        // after them): then the devices are placed again from it.
        let pages = HARPages(read.header, oneSession: options.oneSession)
        if let writer, let assembler, assembler.pages.mapping == pages.mapping, assembler.pages.devices == pages.devices {
            var summary = assembler.summary
            summary.entries = read.entries
            try refuseEmpty(summary, allowsEmpty: options.allowsEmpty, file: path)
            try writer.close()
            return summary
        }
        writer = nil
        let (events, summary) = try assemble(HARStream(path: path), options: options, entries: read.entries)
        try refuseEmpty(summary, allowsEmpty: options.allowsEmpty, file: path)
        let sorted = try SessionWriter(path: output, header: traceHeader(name, generator, devices: pages.devices))
        for placed in events { _ = try sorted.append(placed) }
        try sorted.close()
        return summary
    }

    /// The trace's header: the HAR's file name, never the folders it was in.
    private static func traceHeader(_ name: String, _ generator: String, devices: Int) -> TraceHeader {
        TraceHeader(app: "HAR \(name)", modelVersion: "har-1.2", seed: 0, sessions: devices, generator: generator)
    }

    private static func refuseEmpty(_ summary: Summary, allowsEmpty: Bool, file: String) throws(ImportError) {
        guard summary.images + summary.apiPages == 0, !allowsEmpty else { return }
        let damage = summary.damaged.first.map { "; the first damaged one: \($0)" } ?? ""
        throw ImportError.badField(
            file: file, path: "$.log.entries",
            reason: "no picture or JSON responses among \(summary.entries) entries, so the trace would be empty (--allow-empty writes it)\(damage)")
    }

    /// HAR 1.2 says a missing version means 1.1; a later version may mean other fields.
    private static func checkVersion(_ version: JSONNode?) throws(ImportError) {
        guard let version, !["1.1", "1.2"].contains(try version.string()) else { return }
        throw version.fail("HAR version \(try version.string()) is not one this importer reads (1.1, 1.2)")
    }

    /// The events of one HAR document in the trace's order (each device's session, then its
    /// events by time), times from each device's first entry, with the import's summary.
    static func events(from data: Data, file: String, options: Options = Options()) throws(ImportError) -> (events: [TraceEvent], summary: Summary) {
        let (placed, summary) = try assemble(HARStream(data: data, file: file), options: options, entries: nil)
        var events: [TraceEvent] = []
        var order = SessionOrder()
        for event in placed {
            guard let written = try order.events(for: event) else { continue }
            events += written
        }
        events += order.finish(devices: summary.devices)
        return (events, summary)
    }

    /// Every entry read, placed and sorted into the trace's order.
    private static func assemble(_ stream: HARStream, options: Options, entries: Int?) throws(ImportError) -> ([Placed], Summary) {
        var parsed: [ParsedEntry] = []
        let strict = options.strict
        let read = try stream.forEachEntry(transform: { entry throws(ImportError) in try EntryReader.parse(entry, strict: strict) }) { parsed.append($0) }
        try checkVersion(read.header.version)
        var assembler = Assembler(pages: HARPages(read.header, oneSession: options.oneSession))
        let placed = parsed.compactMap { assembler.place($0) }.enumerated()
            .sorted { ($0.element.place.device, $0.element.place.repeatView ? 1 : 0, $0.element.start, $0.offset)
                < ($1.element.place.device, $1.element.place.repeatView ? 1 : 0, $1.element.start, $1.offset) }
            .map(\.element)
        var summary = assembler.summary
        summary.entries = entries ?? read.entries
        return (placed, summary)
    }

    /// An entry placed on its device, ready to be written.
    struct Placed {
        var place: HARPages.Place
        var start: Double
        var kind: TraceEventKind
        var date: JSONNode?
    }

    /// Numbers picture requests in file order, answers 304s and unsized pictures from earlier
    /// entries of the same URL, and counts everything for the summary.
    struct Assembler {
        let pages: HARPages
        private(set) var summary = Summary()
        private var nextID = 0
        private var pictures: [String: ImageRequestEvent] = [:]
        private var apiURLs = Set<String>()

        init(pages: HARPages) {
            self.pages = pages
            summary.devices = pages.devices
            summary.mapping = pages.mapping
        }

        mutating func place(_ entry: ParsedEntry) -> Placed? {
            if let damage = entry.damage {
                summary.damagedEntries += 1
                if summary.damaged.count < 10 { summary.damaged.append(damage) }
            }
            let place = pages.place(of: entry.page)
            func placed(_ kind: TraceEventKind) -> Placed { Placed(place: place, start: entry.start, kind: kind, date: entry.date) }
            switch entry.kind {
            case .skipped(let reason):
                summary.skipped[reason, default: 0] += 1
                return nil
            case .api(let url):
                apiURLs.insert(url)
                summary.apiPages += 1
                return placed(.api(url: url))
            case .revalidation(let url, let milliseconds, let parts):
                if var picture = pictures[url] {
                    picture.fetchMilliseconds = milliseconds
                    picture.fetchParts = parts
                    summary.revalidations += 1
                    return placed(.image(numbered(picture, sizedBy: .sameURL)))
                }
                if apiURLs.contains(url) {
                    summary.apiPages += 1
                    return placed(.api(url: url))
                }
                summary.skipped[.unseenRevalidation, default: 0] += 1
                return nil
            case .image(var image, var source):
                if source == .unknown, let earlier = pictures[image.url], earlier.width > 0 {
                    (image.width, image.height, image.boxWidth, image.boxHeight) = (earlier.width, earlier.height, earlier.width, earlier.height)
                    (image.sizeEstimate, image.format) = (earlier.sizeEstimate, earlier.format)
                    if image.bytes == 0 { image.bytes = earlier.bytes }
                    source = .sameURL
                }
                if image.width > 0 || pictures[image.url] == nil { pictures[image.url] = image }
                return placed(.image(numbered(image, sizedBy: source)))
            }
        }

        private mutating func numbered(_ image: ImageRequestEvent, sizedBy source: SizeSource) -> ImageRequestEvent {
            var image = image
            nextID += 1
            image.id = nextID
            summary.images += 1
            summary.sizedBy[source, default: 0] += 1
            return image
        }
    }

    /// The trace's sessions and relaunches around placed events, in order: a device's session
    /// starts at its first entry, its repeat view is a relaunch; nil when an event comes out of
    /// that order.
    struct SessionOrder {
        private var device = -1
        private var origin = 0.0
        private var last = 0.0
        private var relaunched = false

        mutating func events(for placed: Placed) throws(ImportError) -> [TraceEvent]? {
            var events: [TraceEvent] = []
            if placed.place.device > device {
                for next in (device + 1)...placed.place.device { events.append(TraceEvent(time: 0, .session(next + 1))) }
                (device, origin, last, relaunched) = (placed.place.device, placed.start, placed.start, false)
            }
            guard placed.place.device == device, placed.start >= last else { return nil }
            if placed.place.repeatView != relaunched {
                guard placed.place.repeatView else { return nil }  // a first view after its repeat view
                relaunched = true
                events.append(TraceEvent(time: try time(of: placed), .relaunch))
            }
            last = placed.start
            events.append(TraceEvent(time: try time(of: placed), placed.kind))
            return events
        }

        /// Sessions for the devices no entry reached, so the file holds as many as its header says.
        mutating func finish(devices: Int) -> [TraceEvent] {
            defer { device = max(device, devices - 1) }
            return device + 1 < devices ? ((device + 1)..<devices).map { TraceEvent(time: 0, .session($0 + 1)) } : []
        }

        /// A session covers at most a year: an entry later than that after its device's first is refused.
        private func time(of placed: Placed) throws(ImportError) -> Int {
            guard placed.start - origin <= Double(TraceEvent.maximumTime) else {
                throw (placed.date ?? JSONNode(value: NSNull(), path: "$.log.entries", file: "")).fail(
                    "more than a year after its device's first entry: a session covers at most a year")
            }
            return Int((placed.start - origin).rounded())
        }
    }

    /// A trace written as placed events arrive; `append` says false, and the file is discarded,
    /// at the first event out of order.
    final class SessionWriter {
        private let writer: TraceWriter
        private var order = SessionOrder()
        private let devices: Int

        init(path: String, header: TraceHeader) throws(ImportError) {
            do { writer = try TraceWriter(path: path, header: header) } catch { throw .unreadable(file: path, reason: error.description) }
            devices = header.sessions
        }

        func append(_ placed: Placed) throws(ImportError) -> Bool {
            guard let events = try order.events(for: placed) else { return false }
            for event in events {
                do { try writer.append(event) } catch { throw .unreadable(file: writer.path, reason: error.description) }
            }
            return true
        }

        func close() throws(ImportError) {
            for event in order.finish(devices: devices) {
                do { try writer.append(event) } catch { throw .unreadable(file: writer.path, reason: error.description) }
            }
            do { try writer.close() } catch { throw .unreadable(file: writer.path, reason: error.description) }
        }
    }
}
