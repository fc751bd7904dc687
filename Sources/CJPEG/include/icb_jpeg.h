// A JPEG that already fits its box needs no libvips pipeline: libjpeg, the decoder
// libvips' own loader calls, decodes it directly. For an 85×125 cover that is about a
// tenth of the time: libvips spends the rest building and tearing down the objects of
// its load (operations, images, regions, their properties and signals).
#ifndef ICB_JPEG_H
#define ICB_JPEG_H

#include <stddef.h>

/// 8-bit RGB rows, top to bottom; `pixels` is the caller's to free() (`length` bytes).
typedef struct {
    unsigned char *pixels;
    size_t length;
    int width;
    int height;
} icb_jpeg_rgb;

/// Decodes a JPEG exactly as libvips' jpegload would, and returns 1 with *out filled, when
/// libvips' load would need nothing more: three components (YCbCr or RGB, which libjpeg
/// outputs as RGB), both sides at most `max_side`, at most `max_pixels` pixels, no Exif
/// segment (its orientation could turn the image), at most `max_scans` scans, and neither an
/// error nor a warning from libjpeg. Otherwise returns 0, allocates nothing, and libvips
/// decides (and explains).
int icb_jpeg_decode_rgb(const void *data, size_t length, int max_side, long max_pixels, int max_scans,
                        icb_jpeg_rgb *out);

#endif
