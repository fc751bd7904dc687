import Foundation
import ImagePipeline

/// The one place an error from the system, Foundation or a decoder becomes words a user reads:
/// a short clause ("no space left on device", "missing field \"figures.3.value\""), for a message
/// that names the file or option before it. Framework dumps (`NSCocoaErrorDomain Code=640`,
/// a `DecodingError`'s debug text) never reach a user.
public enum PlainFailure {
    public static func clause(_ error: any Error) -> String {
        switch error {
        case let failure as FileSystemError: return FileSystemError.reason(failure.code)
        case let failure as Swift.DecodingError: return decoding(failure)
        case let failure as Swift.EncodingError:
            if case .invalidValue(let value, _) = failure { return "a value JSON cannot hold (\(value))" }
            return "cannot encode"
        default: break
        }
        // Errors of this project's own describe themselves in whole clauses already.
        let fromFoundation = type(of: error) is NSError.Type || error is CocoaError || error is POSIXError
        if !fromFoundation { return String(describing: error) }
        let bridged = error as NSError
        if let underlying = bridged.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return FileSystemError.reason(Int32(underlying.code))
        }
        if bridged.domain == NSPOSIXErrorDomain { return FileSystemError.reason(Int32(bridged.code)) }
        if bridged.domain == NSCocoaErrorDomain {
            switch CocoaError.Code(rawValue: bridged.code) {
            case .fileWriteOutOfSpace: return FileSystemError.reason(ENOSPC)
            case .fileNoSuchFile, .fileReadNoSuchFile: return FileSystemError.reason(ENOENT)
            case .fileReadNoPermission, .fileWriteNoPermission: return FileSystemError.reason(EACCES)
            case .fileWriteVolumeReadOnly: return FileSystemError.reason(EROFS)
            case .fileReadTooLarge: return "too large to read"
            case .fileReadCorruptFile, .propertyListReadCorrupt: return "not valid JSON"
            case .fileReadInapplicableStringEncoding, .fileWriteInapplicableStringEncoding: return "not UTF-8 text"
            default: break
            }
        }
        return bridged.localizedDescription
    }

    /// A decoding error as where and what: the field's path from the top of the document.
    static func decoding(_ error: Swift.DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "missing field \"\(path(context.codingPath + [key]))\""
        case .typeMismatch(let type, let context):
            return "\"\(path(context.codingPath))\" is not \(noun(type))"
        case .valueNotFound(let type, let context):
            return "\"\(path(context.codingPath))\" is null where \(noun(type)) belongs"
        case .dataCorrupted(let context):
            guard !context.codingPath.isEmpty else {
                return context.underlyingError == nil && !context.debugDescription.contains("JSON")
                    ? "not valid JSON" : "not valid JSON (a cut or damaged file, or not JSON at all)"
            }
            return "\"\(path(context.codingPath))\": \(context.debugDescription.prefix(120))"
        @unknown default:
            return "cannot be decoded"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "(the top)" : keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }

    private static func noun(_ type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Float.Type: "a number"
        case is Int.Type, is Int64.Type, is UInt64.Type, is Int32.Type: "a whole number"
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        default: "\(type)".hasPrefix("Array") ? "a list" : "an object"
        }
    }
}
