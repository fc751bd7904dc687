/// Whole numbers read straight from bytes, for the trace readers' common case: a field that is
/// only digits makes no string.
package enum DecimalDigits {
    /// The value of a run of decimal digits, or nil if the span holds anything else or
    /// does not fit 64 bits. An empty span is 0.
    package static func value(_ bytes: UnsafeBufferPointer<UInt8>, _ span: Range<Int>) -> UInt64? {
        var value: UInt64 = 0
        if span.count <= 19 {  // cannot overflow
            for index in span {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value &* 10 &+ UInt64(digit)
            }
            return value
        }
        for index in span {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(UInt64(digit))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }
}
