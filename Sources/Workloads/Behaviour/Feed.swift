/// How a scrolling screen places its cells.
public enum FeedLayout: Sendable, Equatable {
    /// Rows of fixed height with the image in a fixed box.
    case list(rowHeight: Double, imageWidth: Double, imageHeight: Double)
    /// `columns` cells per row; the image fills the cell's width at `imageAspect` (height / width).
    case grid(columns: Int, imageAspect: Double, captionHeight: Double)
    /// Full-width cards: the image spans the screen at `imageAspect`, a caption below.
    case cards(imageAspect: Double, captionHeight: Double)
    /// Each item goes to the shortest column; its height follows the item's own aspect.
    case masonry(columns: Int, padding: Double)
}

/// A scrolling list of image cells, as a table or collection view shows it:
/// a cell that scrolls into view asks for its image; a cell that leaves
/// before its image could have arrived is reused, which cancels the request.
public final class Feed {
    public struct Item: Sendable, Equatable {
        /// Nil for a cell without a picture (an article with no image).
        public var url: String?
        /// Height over width of the picture (used by masonry layouts).
        public var aspect: Double
        public init(url: String?, aspect: Double = 1) {
            self.url = url
            self.aspect = aspect
        }
    }

    struct Frame {
        var minY: Double
        var height: Double
        var boxWidth: Double
        var boxHeight: Double
        var maxY: Double { minY + height }
    }

    /// A cell on screen and the request it made (nil when the image was fetched ahead).
    private struct Shown {
        var request: Int?
        var since: Int
    }

    /// A request younger than this when its cell leaves is cancelled (a typical image load).
    public static let cancelWindowMilliseconds = 300

    public private(set) var items: [Item] = []
    public private(set) var layout: FeedLayout
    /// Space above the first cell (a banner, a search bar).
    public let headerHeight: Double
    public private(set) var offset = 0.0
    private var frames: [Frame] = []
    private var columnHeights: [Double] = []
    private var shown: [Int: Shown] = [:]
    /// Items whose first appearance needs no request: the app fetched them with their page.
    private var fetchedAhead: Set<Int> = []
    private var width: Double

    public init(layout: FeedLayout, width: Double, headerHeight: Double = 0) {
        self.layout = layout
        self.width = width
        self.headerHeight = headerHeight
    }

    public var contentHeight: Double { max(headerHeight, columnHeights.max() ?? headerHeight) }
    public var isAtTop: Bool { offset <= 0 }

    /// Space left below the visible part.
    public func remainingBelow(viewport: Double) -> Double { contentHeight - offset - viewport }

    /// The display box of the item at `index`.
    public func box(of index: Int) -> (width: Double, height: Double) {
        (frames[index].boxWidth, frames[index].boxHeight)
    }

    public func append(_ newItems: [Item], fetchedAhead: Bool = false) {
        for item in newItems {
            if fetchedAhead { self.fetchedAhead.insert(items.count) }
            items.append(item)
            frames.append(place(item))
        }
    }

    /// Shows a new list from the top (a new search, a refresh): the old cells leave.
    public func replace(with newItems: [Item], session: UserSession, fetchedAhead: Bool = false) throws {
        try leaveAll(session)
        items = []
        frames = []
        self.fetchedAhead = []
        columnHeights = []
        offset = 0
        append(newItems, fetchedAhead: fetchedAhead)
        try update(session)
    }

    /// Lays the same items out again (rotation, list ↔ grid): visible cells
    /// are configured anew at their new sizes, and ask for their images again.
    public func relayout(_ newLayout: FeedLayout, width newWidth: Double, session: UserSession) throws {
        let anchor = offset / max(contentHeight, 1)
        try leaveAll(session)
        layout = newLayout
        width = newWidth
        columnHeights = []
        fetchedAhead = []
        frames = items.map(place)
        offset = min(anchor * contentHeight, max(0, contentHeight - session.screenHeight))
        try update(session)
    }

    /// Scrolls by `distance` points (negative is up) over `seconds`, sampling
    /// often enough that every cell passing through is seen. `nearEnd` runs
    /// when the bottom comes within a screen (infinite scroll).
    public func scroll(by distance: Double, seconds: Double, session: UserSession,
                       nearEnd: (() async throws -> Void)? = nil) async throws {
        let viewport = session.screenHeight
        let steps = max(1, Int((abs(distance) / (viewport / 2)).rounded(.up)), Int((seconds * 10).rounded(.up)))
        for _ in 0..<steps {
            session.advance(milliseconds: seconds * 1000 / Double(steps))
            let limit = max(0, contentHeight - viewport)
            let target = min(max(offset + distance / Double(steps), 0), limit)
            let moved = target != offset
            offset = target
            if moved { try update(session) }
            if distance > 0, let nearEnd, remainingBelow(viewport: viewport) < viewport {
                let before = items.count
                try await nearEnd()
                if items.count > before { try update(session) }
            }
        }
    }

    /// Brings the visible set up to date: new cells request, leaving cells may cancel.
    public func update(_ session: UserSession) throws {
        let top = offset, bottom = offset + session.screenHeight
        var visible: [Int] = []
        for (index, frame) in frames.enumerated() where frame.maxY > top && frame.minY < bottom {
            visible.append(index)
        }
        let now = Set(visible)
        for (index, cell) in shown.sorted(by: { $0.key < $1.key }) where !now.contains(index) {
            try leave(cell, session)
            shown[index] = nil
        }
        for index in visible where shown[index] == nil {
            if fetchedAhead.remove(index) != nil || items[index].url == nil {
                shown[index] = Shown(request: nil, since: session.time)
            } else if let url = items[index].url {
                let id = try session.request(url, box: box(of: index))
                shown[index] = Shown(request: id, since: session.time)
            }
        }
    }

    /// Indices on screen now, top to bottom.
    public var visibleIndices: [Int] { shown.keys.sorted() }

    private func leaveAll(_ session: UserSession) throws {
        for (_, cell) in shown.sorted(by: { $0.key < $1.key }) { try leave(cell, session) }
        shown = [:]
    }

    private func leave(_ cell: Shown, _ session: UserSession) throws {
        if let id = cell.request, session.time - cell.since < Self.cancelWindowMilliseconds {
            try session.cancel(id)
        }
    }

    private var columnCount: Int {
        switch layout {
        case .list, .cards: 1
        case .grid(let columns, _, _), .masonry(let columns, _): columns
        }
    }

    private func place(_ item: Item) -> Frame {
        if columnHeights.count < columnCount { columnHeights = Array(repeating: headerHeight, count: columnCount) }
        switch layout {
        case .list(let rowHeight, let imageWidth, let imageHeight):
            return stack(column: 0, height: rowHeight, box: (imageWidth, imageHeight))
        case .grid(let columns, let aspect, let caption):
            let cell = width / Double(columns)
            let column = frames.count % columns
            let row = Double(frames.count / columns)
            let height = cell * aspect + caption
            columnHeights[column] = headerHeight + (row + 1) * height
            return Frame(minY: headerHeight + row * height, height: height, boxWidth: cell - 8, boxHeight: (cell - 8) * aspect)
        case .cards(let aspect, let caption):
            let imageHeight = (width - 32) * aspect
            return stack(column: 0, height: imageHeight + caption, box: (width - 32, imageHeight))
        case .masonry(let columns, let padding):
            let column = columnHeights.indices.min { columnHeights[$0] < columnHeights[$1] }!
            let boxWidth = width / Double(columns) - 2 * padding
            let boxHeight = boxWidth * item.aspect
            return stack(column: column, height: boxHeight + 2 * padding, box: (boxWidth, boxHeight))
        }
    }

    private func stack(column: Int, height: Double, box: (Double, Double)) -> Frame {
        let minY = columnHeights[column]
        columnHeights[column] = minY + height
        return Frame(minY: minY, height: height, boxWidth: box.0, boxHeight: box.1)
    }
}
