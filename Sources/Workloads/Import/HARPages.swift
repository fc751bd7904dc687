import Foundation

/// How a HAR's pages become the trace's devices. A trace session is one device whose memory and
/// disk start cold; within it a relaunch empties memory and keeps the disk.
/// - WebPageTest's runs (`_run` and `_cached` on each page, or titles "Run 2, First View"): each
///   run is a test from an empty cache, so a device of its own; its repeat view is that device
///   relaunched.
/// - Browsertime's iterations (its `creator`): each page is a fresh browser, a device of its own.
/// - Any other export (a browser's DevTools, a proxy): the pages were browsed in one sitting, one
///   device. So is every export when the user asks for one session.
struct HARPages {
    /// Where a page's entries go: the device (from 0) and whether the app was relaunched first.
    struct Place: Equatable {
        var device: Int
        var repeatView: Bool
    }

    /// How the pages were read, for the import's summary.
    let mapping: String
    /// The devices the trace has (at least one).
    let devices: Int
    private let places: [String: Place]

    func place(of page: String?) -> Place { page.flatMap { places[$0] } ?? Place(device: 0, repeatView: false) }

    init(_ header: HARStream.Header, oneSession: Bool) {
        let pages = header.pages.compactMap { page -> (id: String, run: Int?, repeatView: Bool?)? in
            guard let id = try? page.optional("id")?.string() else { return nil }
            let run = (try? page.optional("_run")?.int()) ?? nil
            let cached = ((try? page.optional("_cached")?.int()) ?? nil).map { $0 != 0 }
            if let run { return (id, run, cached ?? false) }
            let title = (try? page.optional("title")?.string()) ?? ""
            if let match = title.firstMatch(of: /Run (\d+), (First|Repeat) View/), let number = Int(match.1) {
                return (id, number, match.2 == "Repeat")
            }
            return (id, nil, nil)
        }
        let runs = Set(pages.compactMap(\.run)).sorted()
        let browsertime = header.creator?.lowercased().contains("browsertime") ?? false
        if oneSession || pages.count < 2 && runs.count < 2 {
            mapping = oneSession && pages.count > 1 ? "\(pages.count) pages kept as one session, as asked" : pages.count > 1
                ? "\(pages.count) pages browsed in one sitting: one session" : "one session"
            devices = 1
            places = [:]
        } else if !runs.isEmpty, pages.allSatisfy({ $0.run != nil }) {
            let device = Dictionary(uniqueKeysWithValues: runs.enumerated().map { ($1, $0) })
            places = Dictionary(pages.map { ($0.id, Place(device: device[$0.run!]!, repeatView: $0.repeatView ?? false)) }) { first, _ in first }
            devices = runs.count
            let repeats = Set(places.values.filter(\.repeatView).map(\.device)).count
            mapping = "WebPageTest: \(runs.count) runs, each its own device from an empty cache"
                + (repeats > 0 ? "; \(repeats) repeat views, each its run's device relaunched" : "")
        } else if browsertime {
            places = Dictionary(pages.enumerated().map { ($1.id, Place(device: $0, repeatView: false)) }) { first, _ in first }
            devices = pages.count
            mapping = "Browsertime: \(pages.count) iterations, each its own device from an empty cache"
        } else {
            mapping = "\(pages.count) pages browsed in one sitting: one session"
            devices = 1
            places = [:]
        }
    }
}
