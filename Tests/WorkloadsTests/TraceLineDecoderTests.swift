import Foundation
import Testing
@testable import Workloads

/// The trace reader's own JSON decoder against Foundation's `JSONDecoder` (the reference):
/// every line the fast decoder accepts, the reference accepts with the same event; every
/// line the reference refuses, the fast one refuses too. It may be stricter (no trailing
/// commas, no repeated fields), never looser.
@Suite("Trace lines: the fast decoder agrees with JSONDecoder")
struct TraceLineDecoderTests {
    static func fast(_ line: String) -> Result<TraceEvent, JSONLineError> {
        var bytes = Array(line.utf8)
        return bytes.withUnsafeMutableBufferPointer { buffer in
            Result { () throws(JSONLineError) in try TraceLineDecoder.event(from: UnsafeBufferPointer(buffer)) }
        }
    }

    static func reference(_ line: String) -> TraceEvent? {
        try? JSONDecoder().decode(TraceEvent.self, from: Data(line.utf8))
    }

    /// Agreement as defined above; returns what went wrong, if anything.
    static func disagreement(_ line: String) -> String? {
        switch (fast(line), reference(line)) {
        case (.success(let event), let expected?): event == expected ? nil : "\(line): \(event) ≠ \(expected)"
        case (.success(let event), nil): "\(line): accepted as \(event), refused by JSONDecoder"
        case (.failure, _): nil
        }
    }

    static func datasetLines(limit: Int) throws -> [String] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../datasets").standardized
        var lines: [String] = []
        for name in ["articleproject", "headlines", "mymarket", "picterest", "vanilladin"] {
            var reader = try TraceReader(path: folder.appendingPathComponent("\(name).jsonl.gz").path)
            var taken = 0
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            while taken < limit, let event = try reader.next() {
                lines.append(String(decoding: try encoder.encode(event), as: UTF8.self))
                taken += 1
            }
        }
        return lines
    }

    @Test("every event of every dataset decodes as JSONDecoder decodes it")
    func datasets() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../datasets").standardized
        var events = 0
        for name in ["articleproject", "headlines", "mymarket", "picterest", "vanilladin"] {
            let text = try gunzip(folder.appendingPathComponent("\(name).jsonl.gz").path)
            for line in text.split(separator: "\n").dropFirst() {
                let line = String(line)
                #expect(try Self.fast(line).get() == Self.reference(line), "\(name): \(line)")
                events += 1
            }
        }
        #expect(events > 100_000)
    }

    @Test("the fast line encoder writes every dataset event, and events of every kind and odd strings, as JSONEncoder does, byte for byte")
    func encoderAgrees() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../datasets").standardized
        let reference = JSONEncoder()
        reference.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var fast = TraceLineEncoder()
        var events: [TraceEvent] = []
        for name in ["articleproject", "headlines", "mymarket", "picterest", "vanilladin"] {
            var reader = try TraceReader(path: folder.appendingPathComponent("\(name).jsonl.gz").path)
            while let event = try reader.next() { events.append(event) }
        }
        let odd = ["https://a.example/p?q=\"x\"", "back\\slash", "tab\tand\nnewline", "caf\u{E9} \u{1F600} \u{2028}", "\u{7F}del", "/slashes/", ""]
        for (index, text) in odd.enumerated() {
            events += [
                TraceEvent(time: index, .api(url: text)), TraceEvent(time: 1, .invalidate(url: text)), TraceEvent(time: 2, .memoryWarning(level: text)),
                TraceEvent(time: 3, .image(ImageRequestEvent(
                    id: index, url: text, content: .max, bytes: 0, width: 1, height: 2, format: text, alpha: index % 2 == 0,
                    boxWidth: 3, boxHeight: 4, scale: [1, 1.5, 2, 3, 2.625, 1e-3, 16][index], priority: .prefetch,
                    fetchMilliseconds: index % 3 == 0 ? nil : index, sizeEstimate: ([nil] + ImageRequestEvent.SizeEstimate.allCases)[index % 4]))),
            ]
            var timed = ImageRequestEvent(
                id: index, url: text, content: 1, bytes: 10, width: 1, height: 1, format: "jpeg", boxWidth: 1, boxHeight: 1, scale: 1,
                priority: .visible, fetchMilliseconds: 100 + index)
            timed.fetchParts = .init(blocked: index, dns: index % 2 == 0 ? nil : 3, connect: 40, send: 0, wait: 30 + index, receive: 20)
            events.append(TraceEvent(time: 4, .image(timed)))
        }
        events += [TraceEvent(time: 0, .session(7)), TraceEvent(time: 9, .cancel(id: -3)), TraceEvent(time: 9, .relaunch),
                   TraceEvent(time: 9, .offline(true)), TraceEvent(time: 9, .offline(false))]
        #expect(events.count > 100_000)
        var mismatches = 0
        for event in events {
            var line: [UInt8] = []
            try fast.append(event, to: &line)
            if line != Array(try reference.encode(event)) {
                mismatches += 1
                if mismatches < 4 { Issue.record("\(String(decoding: line, as: UTF8.self)) != \(String(decoding: try reference.encode(event), as: UTF8.self))") }
            }
        }
        #expect(mismatches == 0)
    }

    @Test("hand-picked lines: JSON's corners", arguments: [
        #"  { "type" : "relaunch" , "t" : 5 }  "#,
        #"{"t":5,"type":"api","url":"https:\/\/a.example\/p?q=\"x\"&r=\u00e9\t\ud83d\ude00"}"#,
        #"{"t":5,"type":"api","url":"\ud83d"}"#,
        #"{"t":5,"type":"api","url":"\ude00\ud83d"}"#,
        #"{"t":5e2,"type":"cancel","id":-3}"#,
        #"{"t":1.5,"type":"relaunch"}"#,
        #"{"t":05,"type":"relaunch"}"#,
        #"{"t":-0,"type":"relaunch"}"#,
        #"{"t":5,"type":"cancel","id":9223372036854775807}"#,
        #"{"t":5,"type":"cancel","id":-9223372036854775808}"#,
        #"{"t":5,"type":"cancel","id":9223372036854775808}"#,
        #"{"t":5,"type":"cancel","id":1e18}"#,
        #"{"t":5,"type":"cancel","id":1e30}"#,
        #"{"t":5,"type":"relaunch","extra":[1,{"a":[true,false,null,"x",-1.5E+3]}],"url":7}"#,
        #"{"t":5,"type":"relaunch","extra":[1,]}"#,
        #"{"t":5,"type":"relaunch",}"#,
        #"{"t":5,"type":"relaunch"} x"#,
        #"{"t":5,"type":"relaunch","t":6}"#,
        #"{"\u0074":5,"type":"relaunch"}"#,
        #"{"t":5,"type":"offline","offline":true}"#,
        #"{"t":5,"type":"offline","offline":"yes"}"#,
        #"{"t":5,"type":"memoryWarning","level":null}"#,
        #"{"t":5,"type":"image","image":{"boxHeight":80,"boxWidth":120,"bytes":93676,"content":18446744073709551615,"format":"jpeg","height":630,"id":1,"priority":"visible","scale":2.625,"url":"u","width":1200,"alpha":null,"fetchMilliseconds":null}}"#,
        #"{"t":5,"type":"image","image":{"boxHeight":80,"boxWidth":120,"bytes":93676,"content":18446744073709551616,"format":"jpeg","height":630,"id":1,"priority":"visible","scale":2,"url":"u","width":1200}}"#,
        #"{"t":5,"type":"image","image":{"boxHeight":80,"boxWidth":120,"bytes":93676,"content":1,"format":"png","height":630,"id":1,"priority":"prefetch","scale":1e400,"url":"u","width":1200,"alpha":true,"fetchMilliseconds":12}}"#,
        #"{"t":5,"type":"image","image":{"boxHeight":80,"boxWidth":120,"bytes":93676,"content":1,"format":"png","height":630,"id":1,"priority":"soon","scale":3,"url":"u","width":1200}}"#,
        #"{"t":5,"type":"image","image":[]}"#,
        "{\"t\":5,\"type\":\"api\",\"url\":\"a\u{01}b\"}",
        "{\"t\":5,\"type\":\"api\",\"url\":\"caf\u{e9} \u{1F600}\"}",
    ])
    func corners(_ line: String) {
        #expect(Self.disagreement(line) == nil)
    }

    @Test("refusals name the field and what is wrong", arguments: [
        (#"{"t":5,"type":"relaunch","t":6}"#, #"field "t" appears twice"#),
        (#"{"t":5,"type":"relaunch",}"#, "not valid JSON: expected \" at column 26"),
        (#"{"t":5,"type":"image","image":{"id":1}}"#, #"missing field "image.url""#),
        (#"{"t":5,"type":"cancel","id":"7"}"#, #"wrong type for "id": expected a whole number, found a string"#),
        (#"{"t":5,"type":"cancel","id":1.5}"#, #"wrong type for "id": expected a whole number, found a number"#),
        (#"{"t":5,"type":"cancel","id":99999999999999999999}"#, #"wrong type for "id""#),
        (#"{"t":5,"type":"api","url":"\ud83d"}"#, "a lone UTF-16 surrogate"),
        (#"{"t":5,"type":7}"#, #"wrong type for "type": expected a string, found a number"#),
        (#"[1]"#, "not valid JSON: expected { at column 1"),
        (#"{"t":5,"type":"image","image":{"boxHeight":1,"boxWidth":1,"bytes":1,"content":1,"fetchWait":-3,"format":"jpeg","height":1,"id":1,"priority":"visible","scale":1,"url":"u","width":1}}"#,
         "fetchWait -3 is outside 0…"),
        (#"{"t":5,"type":"image","image":{"boxHeight":1,"boxWidth":1,"bytes":1,"content":1,"fetchDNS":"7","format":"jpeg","height":1,"id":1,"priority":"visible","scale":1,"url":"u","width":1}}"#,
         #"wrong type for "image.fetchDNS""#),
    ])
    func refusals(_ bad: (line: String, reason: String)) {
        guard case .failure(let error) = Self.fast(bad.line) else { Issue.record("accepted \(bad.line)"); return }
        #expect(error.reason.contains(bad.reason), "\(error.reason)")
    }

    @Test("mutated dataset lines: never looser than JSONDecoder, never a different event")
    func mutations() throws {
        var random = SystemRandomNumberGenerator()
        let seed = UInt64.random(in: 0...UInt64.max, using: &random)
        var generator = SeededRandom(seed: seed)
        let lines = try Self.datasetLines(limit: 200)
        let alphabet = Array(#"{}[]:,"\/ 0123456789.eE+-tfnulrsaxbu"#.utf8) + [0x00, 0x0A, 0xC3, 0xFF]
        var accepted = 0
        for _ in 0..<20_000 {
            var bytes = Array(lines[Int(generator.next() % UInt64(lines.count))].utf8)
            for _ in 0...Int(generator.next() % 3) {
                let position = Int(generator.next() % UInt64(bytes.count + 1))
                let byte = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                switch generator.next() % 3 {
                case 0: bytes.insert(byte, at: position)
                case 1 where position < bytes.count: bytes.remove(at: position)
                default: if position < bytes.count { bytes[position] = byte }
                }
            }
            let line = String(decoding: bytes, as: UTF8.self)
            if case .success = Self.fast(line) { accepted += 1 }
            if let problem = Self.disagreement(line) {
                Issue.record("seed \(seed): \(problem)")
                return
            }
        }
        #expect(accepted > 1_000, "the mutations should leave many lines valid (seed \(seed))")
    }

    private func gunzip(_ path: String) throws -> String {
        let reader = try LineReader(path: path)
        var lines: [String] = []
        while try reader.next() != nil { lines.append(reader.withLine { String(decoding: $0, as: UTF8.self) }) }
        return lines.joined(separator: "\n")
    }
}
