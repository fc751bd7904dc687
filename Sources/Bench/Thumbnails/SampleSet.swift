import ImagePipeline
import ImageSynthesis

/// One generated image and the box an app displays it in.
public struct SampleImage: Sendable {
    public let name: String
    /// Which of the five apps shows images like this.
    public let app: String
    public let spec: SynthesisSpec
    public let request: ThumbnailRequest

    public init(name: String, app: String, spec: SynthesisSpec, request: ThumbnailRequest) {
        self.name = name
        self.app = app
        self.spec = spec
        self.request = request
    }
}

extension SampleImage {
    /// Images shaped like those the five documented apps load (APPS.md),
    /// each with the box its app draws it in (points at a 3× phone scale).
    public static let appSamples: [SampleImage] = [
        SampleImage(
            name: "news cover 1200×630", app: "ArticleProject",
            spec: SynthesisSpec(seed: 1, width: 1200, height: 630, format: .jpeg(quality: 85)),
            request: ThumbnailRequest(width: 120, height: 80, scale: 3)),
        SampleImage(
            name: "headline 1600×900", app: "Headlines",
            spec: SynthesisSpec(seed: 2, width: 1600, height: 900, format: .jpeg(quality: 80)),
            request: ThumbnailRequest(width: 390, height: 220, scale: 3)),
        SampleImage(
            name: "book coversum 85×125", app: "Vanilladin",
            spec: SynthesisSpec(seed: 3, width: 85, height: 125, format: .jpeg(quality: 90)),
            request: ThumbnailRequest(width: 60, height: 88, scale: 3)),
        SampleImage(
            name: "book cover500 500×730", app: "Vanilladin",
            spec: SynthesisSpec(seed: 4, width: 500, height: 730, format: .jpeg(quality: 90)),
            request: ThumbnailRequest(width: 160, height: 240, scale: 3)),
        SampleImage(
            name: "photo regular 1080×1620", app: "Picterest",
            spec: SynthesisSpec(seed: 5, width: 1080, height: 1620, format: .jpeg(quality: 80)),
            request: ThumbnailRequest(width: 180, height: 0, scale: 3)),
        SampleImage(
            name: "photo original 6000×4000", app: "Picterest",
            spec: SynthesisSpec(seed: 6, width: 6000, height: 4000, format: .jpeg(quality: 85)),
            request: ThumbnailRequest.square(400)),
        SampleImage(
            name: "photo 1600×1067 WebP", app: "Picterest",
            spec: SynthesisSpec(seed: 7, width: 1600, height: 1067, format: .webp(quality: 80)),
            request: ThumbnailRequest(width: 180, height: 0, scale: 3)),
        SampleImage(
            name: "product 600×600 PNG", app: "My Market",
            spec: SynthesisSpec(seed: 8, width: 600, height: 600, format: .png(compression: 6), hasAlpha: true),
            request: ThumbnailRequest(width: 100, height: 100, scale: 3)),
        SampleImage(
            name: "banner 750×300 GIF", app: "My Market",
            spec: SynthesisSpec(seed: 9, width: 750, height: 300, format: .gif),
            request: ThumbnailRequest(width: 375, height: 150, scale: 2)),
    ]
}
