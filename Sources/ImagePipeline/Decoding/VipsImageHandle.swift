import CVips

/// Owns one reference to a `VipsImage` and releases it when it goes out of scope,
/// so no path through the thumbnailer can leak an image.
package struct VipsImageHandle: ~Copyable {
    package let pointer: UnsafeMutablePointer<VipsImage>

    package typealias Output = UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>

    /// Runs a shim call that produces an image, turning its failure into a `VipsFailure`.
    package init(_ produce: (Output) -> Int32) throws(VipsFailure) {
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
    package func map(
        _ operation: (UnsafeMutablePointer<VipsImage>, Output) -> Int32
    ) throws(VipsFailure) -> VipsImageHandle {
        try VipsImageHandle { out in operation(pointer, out) }
    }

    package var width: Int { Int(vips_image_get_width(pointer)) }
    package var height: Int { Int(vips_image_get_height(pointer)) }
    package var bands: Int { Int(vips_image_get_bands(pointer)) }
    package var bandFormat: VipsBandFormat { vips_image_get_format(pointer) }
    package var interpretation: VipsInterpretation { vips_image_get_interpretation(pointer) }
}

/// A libvips call failed; `message` is what libvips said.
package struct VipsFailure: Error {
    package let message: String
}
