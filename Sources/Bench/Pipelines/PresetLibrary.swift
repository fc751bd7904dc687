import Foundation

/// The committed pipeline files (`presets/`, built into the bench as resources): the five apps as
/// shipped, the fixed pipeline, and the libraries' defaults. Read once; a file that does not read
/// fails every command that needs it with its line, never the process.
public enum PresetLibrary {
    private static let loaded: Result<[AppPreset], PipelineFileError> = Result { () throws(PipelineFileError) in
        guard let folder = Bundle.module.url(forResource: "Presets", withExtension: nil) else {
            throw PipelineFileError(path: "presets", line: 0, message: "the bench was built without its preset files")
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return try names.filter { $0.hasSuffix(".yaml") }.sorted().map { name throws(PipelineFileError) in
            let preset = try PipelineFile.read(folder.appendingPathComponent(name).path)
            guard preset.name + ".yaml" == name else {
                throw PipelineFileError(path: "presets/" + name, line: 0, message: "names itself \(preset.name); a preset's file is its name.yaml")
            }
            return preset
        }
    }

    /// Every committed preset, by file name.
    public static func all() throws(PipelineFileError) -> [AppPreset] { try loaded.get() }

    public static func named(_ name: String) throws(PipelineFileError) -> AppPreset {
        guard let preset = try all().first(where: { $0.name == name }) else {
            throw PipelineFileError(path: "presets/\(name).yaml", line: 0, message: "no such preset")
        }
        return preset
    }

    /// The library's pipeline with the bench's defaults, reacting to a warning by trimming to
    /// half: none of the five apps' defects, and what their fixes change to.
    public static func fixed() throws(PipelineFileError) -> AppPreset { try named(fixedName) }

    /// The fixed pipeline's name, which its rows carry.
    public static let fixedName = "fixed"

    /// The as-shipped presets of the app a trace was recorded from (its header's `app`), the
    /// first as shipped; empty for a mix of apps.
    public static func asShipped(app: String) throws(PipelineFileError) -> [AppPreset] {
        let key = app.lowercased().filter { !$0.isWhitespace }
        return try all().filter { $0.app == key && !$0.defects.isEmpty }
    }

    /// The libraries' defaults (Nuke, Kingfisher, SDWebImage, URLSession with an NSCache): the presets of no app but the fixed pipeline.
    public static func libraries() throws(PipelineFileError) -> [AppPreset] {
        try all().filter { $0.app == nil && $0.name != fixedName }
    }

    /// Every as-shipped preset, for listings.
    public static func allAsShipped() throws(PipelineFileError) -> [AppPreset] {
        try all().filter { $0.app != nil && !$0.defects.isEmpty }
    }
}
