import Foundation

/// How the bench writes and prints JSON: pretty, keys sorted, slashes as they
/// are, non-finite numbers as the strings "inf", "-inf" and "nan".
public enum ResultsJSON {
    /// `lines`: one value per line (JSON Lines), not indented.
    public static func encoder(lines: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = lines ? [.sortedKeys, .withoutEscapingSlashes] : [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }
}

extension ResultsJSON {
    /// `value` as the commands print and write it.
    public static func text<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try encoder().encode(value), as: UTF8.self)
    }
}
