import CacheSimulation
import Foundation
import Workloads

/// A device's costs for the simulator's clock (`DeviceCosts`), as `calibrate` measured them on a
/// machine, in the JSON file `--device-costs` reads. A phone's own figures need a calibration on
/// that phone; a file written by hand says where its figures come from in `source`.
public struct DeviceProfile: Codable, Sendable, Equatable {
    public var costs: DeviceCosts
    /// Where the figures come from: the machine and traces `calibrate` ran on, or a person's words.
    public var source: String
    /// The thumbnails the fit was made from, and the median of its error on them (a fraction).
    public var decodes: Int?
    public var medianError: Double?

    public init(costs: DeviceCosts, source: String, decodes: Int? = nil, medianError: Double? = nil) {
        self.costs = costs
        self.source = source
        self.decodes = decodes
        self.medianError = medianError
    }

    /// The profile in `path`, checked; a file that cannot be read, is not a profile or holds a
    /// figure no device has is refused, naming the file and the field.
    public static func read(_ path: String) throws(UsageError) -> DeviceProfile {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: InputSpool.readable(path))) } catch {
            throw UsageError("--device-costs \(path): cannot be read (\(PlainFailure.clause(error)))")
        }
        let profile: DeviceProfile
        do { profile = try JSONDecoder().decode(DeviceProfile.self, from: data) } catch let DecodingError.keyNotFound(key, context) {
            // A part missing from the costs is a profile an older calibrate wrote, before the model had that part.
            let hint = context.codingPath.isEmpty ? "" : " (a profile from an older calibrate: run calibrate again)"
            throw UsageError("--device-costs \(path): \(Self.field(context.codingPath + [key])) is missing\(hint)")
        } catch let DecodingError.typeMismatch(_, context) where !context.codingPath.isEmpty {
            throw UsageError("--device-costs \(path): \(Self.field(context.codingPath)) is not a number of the right kind")
        } catch {
            throw UsageError("--device-costs \(path): is not a device profile's JSON (\(PlainFailure.clause(error)))")
        }
        let costs = profile.costs
        let figures = [
            ("decodeFixedNanoseconds", costs.decodeFixedNanoseconds), ("decodeLibvipsFixedNanoseconds", costs.decodeLibvipsFixedNanoseconds),
            ("decodeNanosecondsPerEncodedByte", costs.decodeNanosecondsPerEncodedByte),
            ("decodeNanosecondsPerDecodedByte", costs.decodeNanosecondsPerDecodedByte),
            ("decodeNanosecondsPerLoadedPixel", costs.decodeNanosecondsPerLoadedPixel),
            ("decodeNanosecondsPerResizedPixel", costs.decodeNanosecondsPerResizedPixel),
            ("decodeNanosecondsPerBetweenPassesPixel", costs.decodeNanosecondsPerBetweenPassesPixel),
            ("diskReadNanosecondsPerFile", costs.diskReadNanosecondsPerFile), ("diskReadNanosecondsPerByte", costs.diskReadNanosecondsPerByte),
        ]
        if let (name, value) = figures.first(where: { !$0.1.isFinite || $0.1 < 0 || $0.1 > 1e12 }) {
            throw UsageError("--device-costs \(path): costs.\(name) must be from 0 to 10¹² ns, not \(value)")
        }
        guard (1...256).contains(costs.decodeWidth) else {
            throw UsageError("--device-costs \(path): costs.decodeWidth must be from 1 to 256 thumbnails at once, not \(costs.decodeWidth)")
        }
        return profile
    }

    /// Writes the profile to `path` whole, or nothing.
    public func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try OutputFile.write(try encoder.encode(self) + Data("\n".utf8), to: path)
    }

    private static func field(_ path: [any CodingKey]) -> String {
        path.map(\.stringValue).joined(separator: ".")
    }
}
