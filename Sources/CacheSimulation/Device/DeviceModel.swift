import ImagePipeline

/// The memory a phone gives an app: the footprint at which the system ends it, the footprint
/// the app has without any image, and the footprints at which the system warns it. An input
/// of a run, shown in every report that uses it; the figures of the named classes are
/// estimates (DEVICES.md says where each comes from).
public struct DeviceModel: Sendable, Hashable, Codable, CustomStringConvertible {
    /// "iphone-3gb", or "custom".
    public var name: String
    /// The footprint past which the system ends the app (its jetsam limit).
    public var limitBytes: Int
    /// The app's footprint without images: code, UIKit, views, the network stack.
    public var baselineBytes: Int
    /// Footprints at which the system sends a warning and a critical warning.
    public var warningBytes: Int
    public var criticalBytes: Int
    /// The phone's memory (RAM), for a cache sized as a share of it (Nuke's 15 %, Kingfisher's
    /// 25 %); nil where it is not known (a phone given by its limit).
    public var physicalMemoryBytes: Int?

    public init(name: String, limitBytes: Int, baselineBytes: Int, warningBytes: Int, criticalBytes: Int, physicalMemoryBytes: Int? = nil) {
        self.name = name
        self.physicalMemoryBytes = physicalMemoryBytes
        self.limitBytes = limitBytes
        self.baselineBytes = baselineBytes
        self.warningBytes = warningBytes
        self.criticalBytes = criticalBytes
    }

    /// A class of phone: its limit as measured by allocating until the system ended a test app
    /// (community measurements, DEVICES.md), the baseline and the pressure points as shares of it.
    public init(name: String, limitMiB: Int, baselineMiB: Int = Self.baselineMiB, warningShare: Double = Self.warningShare,
                criticalShare: Double = Self.criticalShare, memoryGiB: Int? = nil) {
        let limit = limitMiB << 20
        self.init(
            name: name, limitBytes: limit, baselineBytes: baselineMiB << 20,
            warningBytes: Int(Double(limit) * warningShare), criticalBytes: Int(Double(limit) * criticalShare),
            physicalMemoryBytes: memoryGiB.map { $0 << 30 })
    }

    /// Estimates: an app's own footprint before it shows an image, and where the system warns.
    public static let baselineMiB = 50
    public static let warningShare = 0.8
    public static let criticalShare = 0.9

    /// The named classes, by the RAM of the phones they stand for.
    public static let classes: [DeviceModel] = [
        DeviceModel(name: "iphone-1gb", limitMiB: 645, memoryGiB: 1),
        DeviceModel(name: "iphone-2gb", limitMiB: 1_395, memoryGiB: 2),
        DeviceModel(name: "iphone-3gb", limitMiB: 1_392, memoryGiB: 3),
        DeviceModel(name: "iphone-4gb", limitMiB: 2_068, memoryGiB: 4),
        DeviceModel(name: "iphone-6gb", limitMiB: 3_054, memoryGiB: 6),
    ]

    /// The class the apps comparison runs on unless told otherwise: the 3 GB phones of the
    /// apps' years (iPhone X, XR), whose limit is no higher than the 2 GB phones'.
    public static let appsDefault = classes.first { $0.name == "iphone-3gb" }!

    public static func named(_ name: String) -> DeviceModel? {
        classes.first { $0.name == name.lowercased() }
    }

    /// Whether the footprint figures make a device: warnings below criticals below the limit, all above the baseline.
    public var isConsistent: Bool {
        baselineBytes >= 0 && baselineBytes < warningBytes && warningBytes <= criticalBytes && criticalBytes <= limitBytes
    }

    public var description: String {
        func mib(_ bytes: Int) -> String { "\(bytes >> 20) MiB" }
        return "\(name): ends the app past \(mib(limitBytes)), warns at \(mib(warningBytes)), critical at \(mib(criticalBytes)), "
            + "\(mib(baselineBytes)) of the app's own"
    }
}

extension EvictionPolicyKind {
    /// Whether the cache empties itself when the system warns, whatever the app's reaction:
    /// Foundation's `NSCache` on iOS does (DEVICES.md). Applies where a device model stands for the system.
    public var emptiesUnderSystemPressure: Bool { self == .nsCache }

    /// What a memory tier of this kind does when the system warns: the app's reaction, or, on a
    /// phone (`onDevice`), everything for a cache that empties itself. The simulator and the live
    /// replay both ask this, for the trace's warnings and the phone's alike.
    public func reaction(to level: MemoryPressureLevel, under pressure: MemoryPressurePolicy, onDevice: Bool) -> MemoryPressureReaction {
        onDevice && emptiesUnderSystemPressure ? .purgeAll : pressure.reaction(to: level)
    }
}
