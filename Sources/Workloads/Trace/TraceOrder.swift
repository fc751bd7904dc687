import ImagePipeline

/// What the trace format promises about the order of a file's events, checked one event
/// at a time where a trace is read, so no command meets a trace that breaks it:
/// - the first event starts session 1, and sessions are numbered 1, 2, 3, … in order;
/// - within a session time never runs backwards (an idle time or a warning's age would be negative);
/// - a request's id is unique within the trace, and a cancel names a request made before it in its session;
/// - a warning's level and a picture's format are ones the format knows.
/// The names a trace's enumerated fields take.
enum TraceFormatNames {
    /// The formats a picture may have: those the pipeline decodes, and those a recording
    /// meets that it does not (their memory cost is still the decoded pixels).
    static let imageFormats = ImageFormat.allCases.map(\.rawValue) + ["svg", "ico", "bmp", "tiff"]
}

struct TraceOrder {
    private var session = 0
    private var lastTime = 0
    private var requestIDs = Set<Int>()
    /// This session's requests, which its cancels may name.
    private var sessionRequestIDs = Set<Int>()

    /// The warning levels a trace may carry.
    static let warningLevels = ["warning", "critical"]

    /// Why `event` cannot follow the events before it; nil when it can.
    mutating func admit(_ event: TraceEvent) -> String? {
        if case .session(let number) = event.kind {
            guard number == session + 1 else {
                return session == 0
                    ? "the first session is numbered \(number); sessions are numbered from 1"
                    : "session \(number) follows session \(session); sessions are numbered 1, 2, 3, … in order"
            }
            session = number
            lastTime = event.time
            sessionRequestIDs.removeAll(keepingCapacity: true)
            return nil
        }
        guard session > 0 else { return "an event before the first session event (a trace starts with {\"type\":\"session\",\"session\":1,…})" }
        guard event.time >= lastTime else {
            return "time \(event.time) ms comes after \(lastTime) ms in the same session: a session's clock never runs backwards"
        }
        lastTime = event.time
        switch event.kind {
        case .image(let image):
            guard requestIDs.insert(image.id).inserted else { return "request id \(image.id) is used twice; ids are unique within a trace" }
            sessionRequestIDs.insert(image.id)
            guard TraceFormatNames.imageFormats.contains(image.format) else {
                return "unknown image format \"\(image.format)\"; a trace names one of \(TraceFormatNames.imageFormats.joined(separator: ", "))"
            }
            if image.bytes == 0, image.width > 0, image.height > 0, image.sizeEstimate == nil {
                return "a \(image.width)×\(image.height) picture read from its bytes, of 0 bytes; give the response's length in bytes"
            }
        case .cancel(let id):
            guard sessionRequestIDs.contains(id) else { return "a cancel of request \(id), which no earlier request of this session has as its id" }
        case .memoryWarning(let level):
            guard Self.warningLevels.contains(level) else {
                return "unknown warning level \"\(level)\"; a trace names \(Self.warningLevels.joined(separator: " or "))"
            }
        case .session, .api, .relaunch, .offline, .invalidate: break
        }
        return nil
    }
}
