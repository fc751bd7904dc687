import Foundation
import Testing
import Bench
import CacheSimulation
import ImagePipeline

@Suite("Pipeline files: every field read, every preset a file that reads back as itself, bad files refused with their line")
struct PipelineFileTests {
    static func parse(_ text: String) throws -> AppPreset { try PipelineFile.parse(text, path: "p.yaml") }

    static func refusal(_ text: String) -> PipelineFileError? {
        do {
            _ = try parse(text)
            return nil
        } catch let error as PipelineFileError {
            return error
        } catch {
            return nil
        }
    }

    @Test("each committed preset writes to a file that reads back as the same pipeline")
    func roundTrip() throws {
        let presets = try PresetLibrary.all()
        #expect(presets.count >= 7)
        for preset in presets {
            let text = try PipelineFile.text(of: preset)
            #expect(try Self.parse(text) == preset, "\(preset.name)")
        }
    }

    @Test("the fixed pipeline's file says the bench's defaults, and every as-shipped preset names its app and evidence")
    func committedPresets() throws {
        let fixed = try PresetLibrary.fixed()
        #expect(fixed.memoryLimits == CacheLimits(costLimit: ReplayDefaults.memoryBytes))
        #expect(fixed.policy == ReplayDefaults.policy && fixed.memoryKey == ReplayDefaults.keyStrategy)
        #expect(fixed.disk == .init(byteLimit: ReplayDefaults.diskBytes, policy: ReplayDefaults.diskPolicy))
        #expect(fixed.pressure == WarningReaction(.trimToFraction(0.5)).policy && fixed.defects.isEmpty)
        let shipped = try PresetLibrary.allAsShipped()
        #expect(Set(shipped.compactMap(\.app)) == ["articleproject", "vanilladin", "headlines", "picterest", "mymarket"])
        for preset in shipped {
            #expect(!preset.evidence.isEmpty && !preset.summary.isEmpty && preset.loadsInFlight == 10, "\(preset.name)")
        }
        #expect(try PresetLibrary.asShipped(app: "ArticleProject").map(\.name) == ["articleproject-as-shipped", "articleproject-their-fix"])
        #expect(try PresetLibrary.asShipped(app: "a mix").isEmpty)
    }

    /// A file with every field given, each then changed alone.
    static let base = """
        name: mine
        keys:
          memory: normalized
        decode: thumbnail
        memory:
          limit: 64MiB
          count-limit: 500
          max-entry: 10%
          policy: lru
          time-to-live: none
          on-warning: purge-all
          on-critical: purge-all
        disk:
          limit: 150MB
          count-limit: unlimited
          low-water: 70%
          keeps: originals
          format: as-downloaded
        loads:
          in-flight: 4
          coalescing: per-waiter
          timeout: 60s
        invalidations: honoured
        """

    static func changed(_ line: String, to replacement: String) throws -> AppPreset {
        #expect(base.contains(line))
        return try parse(base.replacingOccurrences(of: line, with: replacement))
    }

    @Test("every field is read into what it names")
    func everyField() throws {
        let base = try Self.parse(Self.base)
        #expect(base.name == "mine" && base.memoryLimits == CacheLimits(costLimit: 64 << 20, countLimit: 500) && base.loadsInFlight == 4)
        #expect(try Self.changed("name: mine", to: "name: mine\napp: Vanilladin").app == "Vanilladin")
        #expect(try Self.changed("name: mine", to: "name: mine\nsummary: \"a: b\"").summary == "a: b")
        #expect(try Self.changed("name: mine", to: "name: mine\nevidence: [one, \"two, three\"]").evidence == ["one", "two, three"])
        #expect(try Self.changed("  memory: normalized", to: "  memory: absoluteString").memoryKey == CacheKeyStrategy(.absoluteString))
        #expect(try Self.changed("  memory: normalized", to: "  memory: normalized\n  disk: lastPathComponent").diskKey == CacheKeyStrategy(.lastPathComponent))
        #expect(try Self.changed("decode: thumbnail", to: "decode: full").memoryCost == .decodedOriginal)
        #expect(try Self.changed("  limit: 64MiB", to: "  limit: unlimited").memoryLimits.costLimit == .max)
        #expect(try Self.changed("  limit: 64MiB", to: "  limit: 15% of device memory, at most 768MiB").memoryDeviceShare
            == AppPreset.DeviceShare(share: 0.15, atMost: 768 << 20))
        #expect(try Self.changed("  limit: 64MiB", to: "  limit: 25% of device memory").memoryDeviceShare == AppPreset.DeviceShare(share: 0.25))
        #expect(try Self.changed("  count-limit: 500", to: "  count-limit: 7").memoryLimits.countLimit == 7)
        #expect(try Self.changed("  max-entry: 10%", to: "  max-entry: 25%").memoryLimits.maxEntryFraction == 0.25)
        #expect(try Self.changed("  policy: lru", to: "  policy: sieve").policy == .sieve)
        #expect(try Self.changed("  time-to-live: none", to: "  time-to-live: 10m").timeToLive == .seconds(600))
        #expect(try Self.changed("  on-warning: purge-all", to: "  on-warning: trim-to-25%").pressure.warning == .trimToFraction(0.25))
        #expect(try Self.changed("  on-critical: purge-all", to: "  on-critical: ignore").pressure.critical == .ignore)
        #expect(try Self.changed("  limit: 150MB", to: "  limit: 2GB").disk?.byteLimit == 2_000_000_000)
        #expect(try Self.changed("  count-limit: unlimited", to: "  count-limit: 100").disk?.countLimit == 100)
        #expect(try Self.changed("  low-water: 70%", to: "  low-water: 50%").disk?.lowWaterFraction == 0.5)
        #expect(try Self.changed("  keeps: originals", to: "  keeps: both").disk?.policy == .both)
        #expect(try Self.changed("  format: as-downloaded", to: "  format: png-6").originalDiskFormat == .png(compression: 6))
        #expect(try Self.changed("  in-flight: 4", to: "  in-flight: 16").loadsInFlight == 16)
        #expect(try Self.changed("  coalescing: per-waiter", to: "  coalescing: none").coalescing == SimulationConfiguration.FetchCoalescing.none)
        #expect(base.requestTimeout == .seconds(60) && base.configuration.requestTimeout == .seconds(60))
        #expect(try Self.changed("  timeout: 60s", to: "  timeout: 15s").configuration.requestTimeout == .seconds(15))
        #expect(try Self.changed("  timeout: 60s", to: "  timeout: none").configuration.requestTimeout == nil)
        #expect(try Self.changed("  timeout: 60s", to: "").requestTimeout == RequestTimeout.standard)
        #expect(try Self.changed("invalidations: honoured", to: "invalidations: ignored").honoursInvalidations == false)
        #expect(try Self.changed("invalidations: honoured", to: "invalidations: honoured\ndefects: [no-disk]").defects.map(\.id) == ["no-disk"])
    }

    @Test("the libraries' defaults: each preset cites its source, says what it cannot express, and runs on every dataset")
    func libraryPresets() throws {
        let names = ["nuke-default", "nuke-datacache", "kingfisher-default", "sdwebimage-default", "urlsession-nscache"]
        let presets = try names.map { try PresetLibrary.named($0) }
        // URLSession's default request timeout under Nuke and a bare URLSession; Kingfisher's and SDWebImage's own.
        #expect(presets.map(\.requestTimeout) == [.seconds(60), .seconds(60), .seconds(15), .seconds(15), .seconds(60)])
        for preset in presets {
            #expect(preset.app == nil && preset.defects.isEmpty && !preset.summary.isEmpty, "\(preset.name)")
            #expect(preset.evidence.contains { $0.hasPrefix("Not expressed") }, "\(preset.name)")
            if !preset.name.hasPrefix("urlsession") {
                #expect(preset.evidence.filter { $0.contains(/\.(swift|m):\d+/) }.count >= 3, "\(preset.name): a file and line for each default")
            }
        }
        // A share of the phone's memory, resolved on the phone: Nuke's 15 % at most 768 MiB, Kingfisher's 25 %.
        let nuke = presets[0], kingfisher = presets[2]
        let small = try #require(DeviceModel.named("iphone-3gb")), large = try #require(DeviceModel.named("iphone-6gb"))
        #expect(nuke.configuration(on: small).limits.costLimit == Int(Double(3 << 30) * 0.15))
        #expect(nuke.configuration(on: large).limits.costLimit == 768 << 20)
        #expect(kingfisher.configuration(on: large).limits.costLimit == (6 << 30) / 4 && kingfisher.timeToLive == .seconds(300))
        #expect(nuke.configuration.limits.costLimit == nuke.configuration(on: small).limits.costLimit)
        let datasets = try FileManager.default.contentsOfDirectory(atPath: CraftedTrace.datasets.path).filter { $0.hasSuffix(".jsonl.gz") }.sorted()
        #expect(datasets.count >= 6)
        for name in datasets.prefix(2) + ["vanilladin-small.jsonl"] {
            let workload = try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent(name).path)
            var run = PipelineSimulation(pipeline: nuke)
            run.bounds = false
            for preset in presets {
                run.pipeline = preset
                let row = try #require(run.run([.recorded(workload)]).first)
                #expect(row.result.requests == workload.requests.count && row.pipeline == preset.name, "\(preset.name) on \(name)")
            }
        }
    }

    @Test("memory: none and disk: none; a file of only a name takes what simulate runs when not told")
    func noneAndDefaults() throws {
        let bare = try Self.parse("name: bare\n")
        #expect(bare.memoryLimits == CacheLimits(costLimit: ReplayDefaults.memoryBytes) && bare.policy == ReplayDefaults.policy)
        #expect(bare.disk == .init(byteLimit: ReplayDefaults.diskBytes, policy: ReplayDefaults.diskPolicy))
        #expect(bare.memoryKey == ReplayDefaults.keyStrategy && bare.memoryCost == .thumbnail && bare.honoursInvalidations)
        let none = try Self.parse("name: none-at-all\nmemory: none\ndisk: none\n")
        #expect(none.memoryLimits.costLimit == 0 && none.memoryLimits.countLimit == 0 && none.disk == nil)
        #expect(try Self.parse(PipelineFile.text(of: none)) == none)
    }

    @Test(
        "a bad file is refused at its line, naming the field and what it takes",
        arguments: [
            ("name: x\nmemroy:\n  limit: 1MB\n", 2, "unknown field memroy"),
            ("name: x\nmemory:\n  limit: 1MB\n  polcy: lru\n", 4, "unknown field memory.polcy"),
            ("name: x\nmemory:\n  limit: 10%\n", 3, "memory.limit: is a size"),
            ("name: x\nmemory:\n  limit: 150% of device memory\n", 3, "memory.limit: is a share above 0%"),
            ("name: x\nmemory:\n  limit: 64MB, at most 1GB\n", 3, "\"at most\" bounds a share of device memory"),
            ("name: x\nmemory:\n  max-entry: 150%\n", 3, "memory.max-entry: is a share"),
            ("name: x\nmemory:\n  policy: fifo2\n", 3, "unknown policy \"fifo2\""),
            ("name: x\nmemory:\n  on-warning: panic\n", 3, "memory.on-warning: unknown reaction"),
            ("name: x\nmemory:\n  time-to-live: 0s\n", 3, "memory.time-to-live"),
            ("name: x\ndisk:\n  format: jpeg-400\n", 3, "disk.format: is as-downloaded"),
            ("name: x\ndisk:\n  keeps: all\n", 3, "disk.keeps: is originals"),
            ("name: x\nloads:\n  in-flight: -1\n", 3, "loads.in-flight: is a whole number from 0 to 10000"),
            ("name: x\nloads:\n  coalescing: maybe\n", 3, "loads.coalescing"),
            ("name: x\nloads:\n  timeout: soon\n", 3, "loads.timeout"),
            ("name: x\nkeys:\n  memory: url\n", 3, "unknown key strategy"),
            ("name: x\ndecode: half\n", 2, "decode: is thumbnail"),
            ("name: x\ninvalidations: sometimes\n", 2, "invalidations: is honoured"),
            ("name: x\ndefects: [slow]\n", 2, "unknown defect \"slow\""),
            ("name: x\nname: y\n", 1, "gives name twice"),
            ("name: x\nmemory:\n  policy: lru\n  policy: sieve\n", 3, "gives policy twice"),
            ("name: a/b\n", 1, "is not a name"),
            ("memory: none\n", 1, "name is missing"),
            ("name: x\nmemory: [1, 2]\n", 2, "memory is a mapping"),
            ("name: x\nmemory:\n  limit: [1MB]\n", 3, "takes one value"),
            ("name: x\nmemory:\n  limit: 1MB\n limit: 2MB\n", 4, "is not YAML"),
            ("- a\n- b\n", 1, "a pipeline file is a mapping"),
        ])
    func refused(_ c: (String, Int, String)) throws {
        let error = try #require(Self.refusal(c.0), "\(c.0) was taken")
        #expect(error.line == c.1 && error.message.contains(c.2), "\(error)")
        #expect(error.description.hasPrefix("p.yaml:\(c.1): "))
    }

    @Test("an empty file and one that cannot be read are refused, naming the file")
    func emptyOrUnreadable() {
        #expect(Self.refusal("")?.message.contains("is empty") == true)
        #expect(throws: PipelineFileError.self) { try PipelineFile.read("/nonexistent/p.yaml") }
    }
}
