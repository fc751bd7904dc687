import Foundation
import Testing
import Workloads

@Suite("Trace format: JSON Lines, streamed, errors at file:line")
struct TraceFileTests {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("icb-trace-\(UUID().uuidString).jsonl").path
    let header = TraceHeader(app: "Vanilladin", modelVersion: "1", seed: 7, sessions: 2, generator: "test")

    static let events: [TraceEvent] = [
        TraceEvent(time: 0, .session(1)),
        TraceEvent(time: 3, .api(url: "https://www.aladin.co.kr/ttb/api/ItemSearch.aspx?Query=swift&start=1&MaxResults=10")),
        TraceEvent(time: 15, .image(ImageRequestEvent(
            id: 1, url: "https://image.aladin.co.kr/product/3228/30/coversum/893746075x_1.jpg", content: 42, bytes: 5_600,
            width: 85, height: 125, format: "jpeg", boxWidth: 60, boxHeight: 88, scale: 3, priority: .visible))),
        TraceEvent(time: 40, .cancel(id: 1)),
        TraceEvent(time: 900, .memoryWarning(level: "warning")),
        TraceEvent(time: 950, .offline(true)),
        TraceEvent(time: 990, .offline(false)),
        TraceEvent(time: 1_000, .invalidate(url: "https://example.com/p/1.png")),
        TraceEvent(time: 0, .session(2)),
        TraceEvent(time: 0, .relaunch),
    ]

    func write(_ text: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    func headerLine(schema: Int = 1) -> String {
        #"{"app":"Vanilladin","generator":"test","modelVersion":"1","schema":\#(schema),"seed":7,"sessions":2}"#
    }

    @Test("every event kind round-trips")
    func roundTrip() throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try TraceWriter(path: path, header: header)
        for event in Self.events { try writer.append(event) }
        try writer.close()
        var reader = try TraceReader(path: path)
        #expect(reader.header == header)
        #expect(try reader.readAll() == Self.events)
    }

    @Test("a malformed line is reported as file:line with what is wrong", arguments: [
        (#"{"t":5,"type":"api""#, "not valid JSON"),
        (#"{"t":5,"type":"teleport"}"#, #"unknown event type "teleport""#),
        (#"{"t":5,"type":"cancel"}"#, #"missing field "id""#),
        (#"{"t":-1,"type":"relaunch"}"#, "time is negative"),
        (#"{"t":20000000000000,"type":"relaunch"}"#, "more than a year after the session began"),
        (#"{"t":5,"type":"image","image":{"id":"x"}}"#, #"wrong type for "image.id""#),
    ])
    func malformed(_ bad: (line: String, reason: String)) throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        try write([headerLine(), #"{"t":0,"type":"session","session":1}"#, "", bad.line, #"{"t":9,"type":"relaunch"}"#].joined(separator: "\n"))
        var reader = try TraceReader(path: path)
        #expect(try reader.next() == TraceEvent(time: 0, .session(1)))
        do {
            _ = try reader.next()
            Issue.record("no error for \(bad.line)")
        } catch {
            let name = URL(fileURLWithPath: path).path
            #expect(error.description.hasPrefix("\(name):4: "), "\(error)")  // the blank line counts
            #expect(error.description.contains(bad.reason), "\(error)")
        }
    }

    @Test("the header is required and its schema checked")
    func headerChecks() throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        try write(#"{"t":0,"type":"relaunch"}"#)
        #expect(throws: TraceError.missingHeader(file: path)) { try TraceReader(path: path) }
        try write(headerLine(schema: 2) + "\n")
        #expect(throws: TraceError.unsupportedSchema(file: path, found: 2, supported: 1)) { try TraceReader(path: path) }
        try write("")
        #expect(throws: TraceError.malformed(file: path, line: 1, reason: "an empty file: a trace starts with its header line")) {
            try TraceReader(path: path)
        }
        #expect(throws: TraceError.io(file: path + ".missing", reason: "cannot open for reading")) {
            try TraceReader(path: path + ".missing")
        }
    }

    @Test("CRLF line ends, blank lines and a last line without a newline are fine")
    func lineEnds() throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sessions = #"{"session":1,"t":0,"type":"session"}"# + "\r\n" + #"{"session":2,"t":0,"type":"session"}"# + "\r\n"
        try write(headerLine() + "\r\n\r\n" + sessions + #"{"t":1,"type":"relaunch"}"# + "\r\n" + #"{"t":2,"type":"relaunch"}"#)
        var reader = try TraceReader(path: path)
        #expect(try reader.readAll() == [TraceEvent(time: 0, .session(1)), TraceEvent(time: 0, .session(2)),
                                         TraceEvent(time: 1, .relaunch), TraceEvent(time: 2, .relaunch)])
    }

    @Test("a trace with no events, or not the sessions its header says, is refused at its last line")
    func sessionsAndEmptiness() throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        try write(headerLine() + "\n")
        var empty = try TraceReader(path: path)
        #expect(throws: TraceError.malformed(file: path, line: 1, reason: "no events after the header: an empty trace (--allow-empty accepts it)")) { try empty.readAll() }
        try write(headerLine() + "\n" + #"{"session":1,"t":0,"type":"session"}"# + "\n")
        var short = try TraceReader(path: path)
        #expect(throws: TraceError.malformed(file: path, line: 2, reason: "the header says 2 sessions, the file has 1")) { try short.readAll() }
        #expect(throws: TraceError.io(file: NSTemporaryDirectory(), reason: "a folder, not a trace file")) {
            try TraceReader(path: NSTemporaryDirectory())
        }
    }

    @Test("a line longer than 16 MiB is refused with its number, not read into memory")
    func overlongLine() throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        var text = Data((headerLine() + "\n" + #"{"t":0,"type":"session","session":1}"# + "\n").utf8)
        text.append(Data(repeating: UInt8(ascii: "x"), count: 17 << 20))
        try text.write(to: URL(fileURLWithPath: path))
        var reader = try TraceReader(path: path)
        _ = try reader.next()
        #expect(throws: TraceError.malformed(file: path, line: 3, reason: "a line longer than 16 MiB")) { try reader.next() }
    }

    @Test("a .gz cut short says so, after the last whole line")
    func truncatedGzip() throws {
        let gz = path + ".gz"
        defer { try? FileManager.default.removeItem(atPath: gz) }
        let writer = try TraceWriter(path: gz, header: header)
        try writer.append(TraceEvent(time: 0, .session(1)))
        for index in 0..<20_000 { try writer.append(TraceEvent(time: index, .offline(index % 2 == 0))) }
        try writer.close()
        let whole = try Data(contentsOf: URL(fileURLWithPath: gz))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: gz))
        var reader = try TraceReader(path: gz)
        do {
            _ = try reader.readAll()
            Issue.record("a cut .gz was read to the end")
        } catch {
            guard case .io(let file, let reason) = error else { Issue.record("\(error)"); return }
            #expect(file == gz && reason.hasPrefix("compressed data cut short after line ") && reason.hasSuffix("(a truncated .gz)"))
        }
    }

    @Test("100,000 events stream through in 64 KB chunks")
    func large() throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try TraceWriter(path: path, header: header)
        for session in 1...2 { try writer.append(TraceEvent(time: 0, .session(session))) }
        for index in 0..<100_000 { try writer.append(TraceEvent(time: index, .invalidate(url: "https://a.example/\(index)"))) }
        try writer.close()
        var reader = try TraceReader(path: path)
        var count = 0, last = -1
        while let event = try reader.next() {
            if case .session = event.kind { continue }
            guard case .invalidate(let url) = event.kind, let id = Int(url.dropFirst("https://a.example/".count)) else {
                Issue.record("unexpected \(event)")
                break
            }
            #expect(id == last + 1)
            last = id
            count += 1
        }
        #expect(count == 100_000)
    }
}
