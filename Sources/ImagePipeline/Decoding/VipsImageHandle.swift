import CVips

/// Owns one reference to a `VipsImage` and releases it when it goes out of scope,
/// so no path through the thumbnailer can leak an image.
struct VipsImageHandle: ~Copyable {
    let pointer: UnsafeMutablePointer<VipsImage>

    typealias Output = UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>

    /// Runs a shim call that produces an image, turning its failure into a `VipsFailure`.
    init(_ produce: (Output) -> Int32) throws(VipsFailure) {
        var out: UnsafeMutablePointer<VipsImage>?
        let status = produce(&out)
        guard status == 0, let out else {
            icb_unref(out)
            throw VipsFailure(message: LibVips.takeErrorMessage())
        }
        pointer = out
    }

    deinit { icb_unref(pointer) }

    /// Applies an operation to this image and returns the result as a new handle.
    func map(
        _ operation: (UnsafeMutablePointer<VipsImage>, Output) -> Int32
    ) throws(VipsFailure) -> VipsImageHandle {
        try VipsImageHandle { out in operation(pointer, out) }
    }

    var width: Int { Int(vips_image_get_width(pointer)) }
    var height: Int { Int(vips_image_get_height(pointer)) }
    var bands: Int { Int(vips_image_get_bands(pointer)) }
    var bandFormat: VipsBandFormat { vips_image_get_format(pointer) }
    var interpretation: VipsInterpretation { vips_image_get_interpretation(pointer) }
}

/// A libvips call failed; `message` is what libvips said.
struct VipsFailure: Error {
    let message: String
}
