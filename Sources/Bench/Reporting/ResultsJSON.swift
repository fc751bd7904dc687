import Foundation

/// How the bench writes and prints JSON: pretty, keys sorted, slashes as they
/// are, non-finite numbers as the strings "inf", "-inf" and "nan".
public enum ResultsJSON {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }
}
