/// Decodes one event line of a trace: what `TraceEvent`'s `Decodable` conformance reads,
/// with the same checks, about ten times faster than `JSONDecoder` (BENCHMARKS.md,
/// "Reading traces"). Values are range-checked here, where they enter.
enum TraceLineDecoder {
    // The fields, in the order the writer puts them (sorted), which the scanner tries first.
    private enum EventField: Int { case id, image, level, offline, session, t, type, url }
    private static let eventFields = FieldNames(["id", "image", "level", "offline", "session", "t", "type", "url"])
    private enum ImageField: Int {
        case alpha, boxHeight, boxWidth, bytes, content, fetchBlocked, fetchConnect, fetchDNS, fetchMilliseconds, fetchReceive, fetchSend,
             fetchWait, format, height, id, priority, scale, sizeEstimate, url, width
    }
    private static let imageFields = FieldNames([
        "alpha", "boxHeight", "boxWidth", "bytes", "content", "fetchBlocked", "fetchConnect", "fetchDNS", "fetchMilliseconds",
        "fetchReceive", "fetchSend", "fetchWait", "format", "height", "id", "priority", "scale", "sizeEstimate", "url", "width",
    ])

    static func event(from line: UnsafeBufferPointer<UInt8>) throws(JSONLineError) -> TraceEvent {
        var scanner = JSONScanner(line)
        let (fields, imageSpans) = try scanner.object(fields: eventFields, at: "", nested: (EventField.image.rawValue, imageFields))
        try scanner.expectEnd()
        func span(_ field: EventField) throws(JSONLineError) -> Range<Int> {
            guard let span = fields[field.rawValue] else { throw JSONLineError(reason: "missing field \"\(eventFields.names[field.rawValue])\"") }
            return span
        }
        let time = try scanner.integer(in: span(.t), at: "t")
        guard time >= 0 else { throw JSONLineError(reason: "t: time is negative") }
        guard time <= TraceEvent.maximumTime else {
            throw JSONLineError(reason: "t: time \(time) ms is more than a year after the session began")
        }
        let type = try span(.type)
        let kind: TraceEventKind
        if scanner.string(in: type, equals: "image") {
            kind = .image(try image(in: scanner, at: span(.image), fields: imageSpans))
        } else if scanner.string(in: type, equals: "cancel") {
            kind = .cancel(id: try scanner.integer(in: span(.id), at: "id"))
        } else if scanner.string(in: type, equals: "session") {
            kind = .session(try scanner.integer(in: span(.session), at: "session"))
        } else if scanner.string(in: type, equals: "api") {
            kind = .api(url: try scanner.string(in: span(.url), at: "url"))
        } else if scanner.string(in: type, equals: "memoryWarning") {
            kind = .memoryWarning(level: try scanner.string(in: span(.level), at: "level"))
        } else if scanner.string(in: type, equals: "relaunch") {
            kind = .relaunch
        } else if scanner.string(in: type, equals: "offline") {
            kind = .offline(try scanner.bool(in: span(.offline), at: "offline"))
        } else if scanner.string(in: type, equals: "invalidate") {
            kind = .invalidate(url: try scanner.string(in: span(.url), at: "url"))
        } else {
            throw JSONLineError(reason: "type: unknown event type \"\(try scanner.string(in: type, at: "type"))\"")
        }
        return TraceEvent(time: time, kind)
    }

    /// The image request read from the object at `object`, whose fields' spans the
    /// event's pass found.
    private static func image(in scanner: JSONScanner, at object: Range<Int>, fields: FieldSpans) throws(JSONLineError) -> ImageRequestEvent {
        guard scanner.bytes[object.lowerBound] == UInt8(ascii: "{") else {
            throw JSONLineError(reason: "wrong type for \"image\": expected an object")
        }
        func span(_ field: ImageField) throws(JSONLineError) -> Range<Int> {
            guard let span = fields[field.rawValue] else {
                throw JSONLineError(reason: "missing field \"image.\(imageFields.names[field.rawValue])\"")
            }
            return span
        }
        /// An optional field: absent or null is nil.
        func optional(_ field: ImageField) -> Range<Int>? {
            fields[field.rawValue].flatMap { scanner.isNull($0) ? nil : $0 }
        }
        func priority() throws(JSONLineError) -> ImageRequestEvent.Priority {
            let priority = try span(.priority)
            if scanner.string(in: priority, equals: "visible") { return .visible }
            if scanner.string(in: priority, equals: "prefetch") { return .prefetch }
            let text = try scanner.string(in: priority, at: "image.priority")
            throw JSONLineError(reason: "image.priority: \"\(text)\" is neither visible nor prefetch")
        }
        func sizeEstimate() throws(JSONLineError) -> ImageRequestEvent.SizeEstimate? {
            guard let span = optional(.sizeEstimate) else { return nil }
            let text = try scanner.string(in: span, at: "image.sizeEstimate")
            guard let estimate = ImageRequestEvent.SizeEstimate(rawValue: text) else {
                let known = ImageRequestEvent.SizeEstimate.allCases.map(\.rawValue).joined(separator: ", ")
                throw JSONLineError(reason: "image.sizeEstimate: \"\(text)\" is not one of \(known)")
            }
            return estimate
        }
        func milliseconds(_ field: ImageField) throws(JSONLineError) -> Int? {
            try optional(field).map { span throws(JSONLineError) in try scanner.integer(in: span, at: "image.\(imageFields.names[field.rawValue])") }
        }
        var image = ImageRequestEvent(
            id: try scanner.integer(in: span(.id), at: "image.id"),
            url: try scanner.string(in: span(.url), at: "image.url"),
            content: try scanner.unsigned(in: span(.content), at: "image.content"),
            bytes: try scanner.integer(in: span(.bytes), at: "image.bytes"),
            width: try scanner.integer(in: span(.width), at: "image.width"),
            height: try scanner.integer(in: span(.height), at: "image.height"),
            format: try scanner.string(in: span(.format), at: "image.format"),
            alpha: try optional(.alpha).map { span throws(JSONLineError) in try scanner.bool(in: span, at: "image.alpha") },
            boxWidth: try scanner.integer(in: span(.boxWidth), at: "image.boxWidth"),
            boxHeight: try scanner.integer(in: span(.boxHeight), at: "image.boxHeight"),
            scale: try scanner.double(in: span(.scale), at: "image.scale"),
            priority: try priority(),
            fetchMilliseconds: try milliseconds(.fetchMilliseconds),
            sizeEstimate: try sizeEstimate())
        (image.fetchBlocked, image.fetchDNS, image.fetchConnect) = (try milliseconds(.fetchBlocked), try milliseconds(.fetchDNS), try milliseconds(.fetchConnect))
        (image.fetchSend, image.fetchWait, image.fetchReceive) = (try milliseconds(.fetchSend), try milliseconds(.fetchWait), try milliseconds(.fetchReceive))
        if let problem = image.outOfRange { throw JSONLineError(reason: "image: \(problem)") }
        return image
    }
}
