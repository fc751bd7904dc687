import CacheSimulation

/// `--device` as users write it: `none`, a class (`iphone-3gb`), a class with changes
/// (`iphone-3gb,baseline=120MB`), or a phone of their own (`limit=1400MiB,baseline=80MiB,warning=75%`).
/// `warning` and `critical` take a size or a share of the limit.
public enum DeviceParsing {
    public struct ParseError: Error, CustomStringConvertible {
        public let text: String
        public let reason: String
        public var description: String {
            "--device \"\(text)\": \(reason); write none, a class (\(DeviceModel.classes.map(\.name).joined(separator: ", "))), "
                + "a class with changes (iphone-3gb,baseline=120MB) or limit=1400MiB[,baseline=50MiB][,warning=80%][,critical=90%]"
        }
    }

    /// The device, or nil for `none`.
    public static func parse(_ text: String) throws(ParseError) -> DeviceModel? {
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = parts.first, !first.isEmpty else { throw ParseError(text: text, reason: "empty") }
        if parts.count == 1, first.lowercased() == "none" { return nil }
        var device: DeviceModel
        var settings = parts[...]
        var warningShare = DeviceModel.warningShare, criticalShare = DeviceModel.criticalShare
        var warning: Int?, critical: Int?
        if first.contains("=") {
            device = DeviceModel(name: "custom", limitBytes: 0, baselineBytes: DeviceModel.baselineMiB << 20, warningBytes: 0, criticalBytes: 0)
        } else {
            guard let named = DeviceModel.named(first) else { throw ParseError(text: text, reason: "no device class \"\(first)\"") }
            device = named
            settings = settings.dropFirst()
            warningShare = Double(named.warningBytes) / Double(named.limitBytes)
            criticalShare = Double(named.criticalBytes) / Double(named.limitBytes)
            if !settings.isEmpty { device.name += "-custom" }
        }
        for setting in settings {
            let pair = setting.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { throw ParseError(text: text, reason: "\"\(setting)\" is not name=value") }
            guard ["limit", "baseline", "warning", "critical"].contains(pair[0].lowercased()) else {
                throw ParseError(text: text, reason: "unknown setting \"\(pair[0])\" (limit, baseline, warning, critical)")
            }
            let size: ByteSize
            do { size = try ByteSize(parsing: pair[1]) } catch { throw ParseError(text: text, reason: error.description) }
            switch (pair[0].lowercased(), size) {
            case ("limit", .bytes(let bytes)): device.limitBytes = bytes
            case ("baseline", .bytes(let bytes)): device.baselineBytes = bytes
            case ("warning", .bytes(let bytes)): warning = bytes
            case ("warning", .fraction(let share)): warningShare = share
            case ("critical", .bytes(let bytes)): critical = bytes
            case ("critical", .fraction(let share)): criticalShare = share
            default:
                throw ParseError(text: text, reason: "\(pair[0]) is a size, not a share")
            }
        }
        guard device.limitBytes > 0 else { throw ParseError(text: text, reason: "a phone of your own needs limit=") }
        device.warningBytes = warning ?? Int(Double(device.limitBytes) * warningShare)
        device.criticalBytes = critical ?? Int(Double(device.limitBytes) * criticalShare)
        guard device.isConsistent else {
            throw ParseError(text: text, reason: "the app's own footprint (baseline \(ByteSize.format(device.baselineBytes))), the warning (\(ByteSize.format(device.warningBytes))), the critical warning (\(ByteSize.format(device.criticalBytes))) and the limit (\(ByteSize.format(device.limitBytes))) must rise in that order")
        }
        return device
    }
}
