// Plain C functions over the variadic libvips calls ImageCacheBench uses.
// Swift cannot call C variadic functions, so each optional-argument call
// gets one fixed signature here. Every function returns 0 on success and -1
// on error (with the libvips error buffer set), like libvips itself.
#ifndef ICB_VIPS_SHIM_H
#define ICB_VIPS_SHIM_H

#include <vips/vips.h>
#include <vips/vector.h>

// MARK: - Lifecycle and settings

static inline int icb_init(const char *program_name) {
    return VIPS_INIT(program_name);
}

static inline void icb_apply_settings(int cache_max_operations, size_t cache_max_bytes,
                                      int cache_max_files, int concurrency,
                                      int block_untrusted, int vectorised) {
    vips_cache_set_max(cache_max_operations);
    vips_cache_set_max_mem(cache_max_bytes);
    vips_cache_set_max_files(cache_max_files);
    vips_concurrency_set(concurrency);
    vips_block_untrusted_set(block_untrusted ? TRUE : FALSE);
    vips_vector_set_enabled(vectorised ? TRUE : FALSE);
}

static inline int icb_vectorised(void) {
    return vips_vector_isenabled() ? 1 : 0;
}

// libvips reports loader warnings with g_warning, which prints to stderr from
// any thread. A library must not write there; the handler drops them (a failed
// load still reports its error through the error buffer).
static void icb__drop_warning(const gchar *domain, GLogLevelFlags level,
                              const gchar *message, gpointer unused) {
    (void)domain; (void)level; (void)message; (void)unused;
}

static inline void icb_capture_warnings(void) {
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, icb__drop_warning, NULL);
}

static inline void icb_unref(VipsImage *image) {
    if (image) g_object_unref(image);
}

static void *icb__count_object(void *object, void *counter, void *unused) {
    (void)object; (void)unused;
    *(long *)counter += 1;
    return NULL;
}

// Number of live VipsObjects (images, operations, buffers) in the process:
// the exact figure a leak check compares before and after a loop.
static inline long icb_live_object_count(void) {
    long count = 0;
    vips_object_map(icb__count_object, &count, NULL);
    return count;
}

// MARK: - Loading

// Both loads name their loader: the caller has sniffed the format, and libvips' own
// search (vips_image_new_from_buffer) asks every loader class in turn whether the bytes
// are its, a large part of a small image's load. The blob borrows the bytes, as that
// function's does: they must outlive the image.
static inline int icb__load(const char *loader, const void *data, size_t length, VipsAccess access,
                            VipsFailOn fail_on, VipsImage **out) {
    VipsBlob *blob = vips_blob_new(NULL, data, length);
    int result = vips_call(loader, blob, out, "access", access, "fail_on", fail_on, NULL);
    vips_area_unref(VIPS_AREA(blob));
    return result;
}

// Loads every pixel at full size (the "full decode" strategy shrink-on-load avoids).
static inline int icb_load_full(const char *loader, const void *data, size_t length, VipsFailOn fail_on,
                                VipsImage **out) {
    return icb__load(loader, data, length, VIPS_ACCESS_RANDOM, fail_on, out);
}

// Reads the header now and decodes later, top to bottom, as pixels are asked for (with
// icb_render_here, on the calling thread; the random-access load above decodes into memory
// through libvips' thread pool first). Only for images that need no rotation, which reads
// out of order.
static inline int icb_load_sequential(const char *loader, const void *data, size_t length, VipsFailOn fail_on,
                                      VipsImage **out) {
    return icb__load(loader, data, length, VIPS_ACCESS_SEQUENTIAL, fail_on, out);
}

static inline int icb_orientation(VipsImage *image) {
    return vips_image_get_orientation(image);
}

static inline int icb_thumbnail_buffer(const void *data, size_t length, int width, int height,
                                       VipsSize size, int no_rotate, VipsFailOn fail_on,
                                       VipsImage **out) {
    return vips_thumbnail_buffer((void *)data, length, out, width,
                                 "height", height,
                                 "size", size,
                                 "no_rotate", no_rotate ? TRUE : FALSE,
                                 "fail_on", fail_on,
                                 // 8.14's buffer variant forwards only option_string to the loader.
                                 "option_string", fail_on == VIPS_FAIL_ON_NONE ? "" :
                                     fail_on == VIPS_FAIL_ON_TRUNCATED ? "fail_on=truncated" :
                                     fail_on == VIPS_FAIL_ON_ERROR ? "fail_on=error" : "fail_on=warning",
                                 NULL);
}

// MARK: - Processing

static inline int icb_autorot(VipsImage *in, VipsImage **out) {
    return vips_autorot(in, out, NULL);
}

static inline int icb_resize(VipsImage *in, VipsImage **out, double hscale, double vscale) {
    return vips_resize(in, out, hscale, "vscale", vscale, NULL);
}

static inline int icb_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space) {
    return vips_colourspace(in, out, space, NULL);
}

static inline int icb_cast(VipsImage *in, VipsImage **out, VipsBandFormat format) {
    return vips_cast(in, out, format, NULL);
}

static inline int icb_extract_bands(VipsImage *in, VipsImage **out, int first, int count) {
    return vips_extract_band(in, out, first, "n", count, NULL);
}

static inline int icb_linear(VipsImage *in, VipsImage **out, double multiply, double add) {
    return vips_linear1(in, out, multiply, add, NULL);
}

static inline int icb_add(VipsImage *left, VipsImage *right, VipsImage **out) {
    return vips_add(left, right, out, NULL);
}

static inline int icb_bandjoin3(VipsImage *a, VipsImage *b, VipsImage *c, VipsImage **out) {
    VipsImage *bands[3] = { a, b, c };
    return vips_bandjoin(bands, out, 3, NULL);
}

// Composites an alpha band onto white, for formats without alpha.
static inline int icb_flatten_white(VipsImage *in, VipsImage **out) {
    double white[1] = { 255.0 };
    VipsArrayDouble *background = vips_array_double_new(white, 1);
    int status = vips_flatten(in, out, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return status;
}

static inline int icb_bandjoin2(VipsImage *a, VipsImage *b, VipsImage **out) {
    return vips_bandjoin2(a, b, out, NULL);
}

// Labels generated pixels as sRGB so savers treat 4 bands as RGBA, not CMYK.
static inline int icb_copy_as_srgb(VipsImage *in, VipsImage **out) {
    return vips_copy(in, out, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
}

static inline int icb_copy_with_orientation(VipsImage *in, VipsImage **out, int orientation) {
    if (vips_copy(in, out, NULL)) return -1;
    vips_image_set_int(*out, VIPS_META_ORIENTATION, orientation);
    return 0;
}

/// A copy carrying one integer of metadata ("page-height" makes a tall image a multi-frame GIF).
static inline int icb_copy_with_int(VipsImage *in, VipsImage **out, const char *name, int value) {
    if (vips_copy(in, out, NULL)) return -1;
    vips_image_set_int(*out, name, value);
    return 0;
}

// MARK: - Rendering

// Computes every pixel of a thumbnail-sized image on the calling thread, a strip of rows at a
// time (the height libvips' own sinks use), into one buffer the caller frees with g_free.
// vips_image_write_to_memory hands the work to libvips' thread pool and waits: for a small
// image the hand-offs between threads cost more than its pixels. The pipeline already decodes
// several images at once, one a thread.
static inline void *icb_render_here(VipsImage *in, size_t *length) {
    size_t line = VIPS_IMAGE_SIZEOF_LINE(in);
    size_t size = line * (size_t)in->Ysize;
    unsigned char *pixels = g_try_malloc(size);
    if (!pixels) {
        vips_error("icb_render_here", "out of memory for %zu bytes of pixels", size);
        return NULL;
    }
    VipsRegion *region = vips_region_new(in);
    if (!region) {
        g_free(pixels);
        return NULL;
    }
    int tile_width, tile_height, strip;
    vips_get_tile_size(in, &tile_width, &tile_height, &strip);
    for (int top = 0; top < in->Ysize; top += strip) {
        VipsRect rows = { 0, top, in->Xsize, VIPS_MIN(strip, in->Ysize - top) };
        if (vips_region_prepare(region, &rows)) {
            g_object_unref(region);
            g_free(pixels);
            return NULL;
        }
        for (int y = rows.top; y < VIPS_RECT_BOTTOM(&rows); y++)
            memcpy(pixels + (size_t)y * line, VIPS_REGION_ADDR(region, 0, y), line);
    }
    g_object_unref(region);
    *length = size;
    return pixels;
}

// MARK: - Synthesis

static inline int icb_perlin(VipsImage **out, int width, int height, int cell_size, int seed) {
    return vips_perlin(out, width, height, "cell_size", cell_size, "seed", seed, NULL);
}

static inline int icb_worley(VipsImage **out, int width, int height, int cell_size, int seed) {
    return vips_worley(out, width, height, "cell_size", cell_size, "seed", seed, NULL);
}

static inline int icb_gaussnoise(VipsImage **out, int width, int height, double mean,
                                 double sigma, int seed) {
    return vips_gaussnoise(out, width, height, "mean", mean, "sigma", sigma, "seed", seed, NULL);
}

// Renders a (small) image into memory, so what reads it many times computes it once.
static inline int icb_copy_memory(VipsImage *in, VipsImage **out) {
    *out = vips_image_copy_memory(in);
    return *out ? 0 : -1;
}

// A tile repeated to cover width × height: noise made once per tile, not per pixel.
static inline int icb_tile(VipsImage *tile, VipsImage **out, int width, int height) {
    VipsImage *repeated;
    int across = (width + tile->Xsize - 1) / tile->Xsize, down = (height + tile->Ysize - 1) / tile->Ysize;
    if (vips_replicate(tile, &repeated, across, down, NULL)) return -1;
    int status = vips_extract_area(repeated, out, 0, 0, width, height, NULL);
    g_object_unref(repeated);
    return status;
}

// Scaled up to exactly width × height, bilinear.
static inline int icb_enlarge(VipsImage *in, VipsImage **out, int width, int height) {
    return vips_resize(in, out, (double)width / in->Xsize, "vscale", (double)height / in->Ysize,
                       "kernel", VIPS_KERNEL_LINEAR, NULL);
}

// MARK: - Encoding

static inline int icb_jpegsave_buffer(VipsImage *in, void **buffer, size_t *length,
                                      int quality, int interlace, int strip) {
    return vips_jpegsave_buffer(in, buffer, length, "Q", quality,
                                "interlace", interlace ? TRUE : FALSE,
                                "strip", strip ? TRUE : FALSE, NULL);
}

static inline int icb_pngsave_buffer(VipsImage *in, void **buffer, size_t *length,
                                     int compression, int strip) {
    return vips_pngsave_buffer(in, buffer, length, "compression", compression,
                               "strip", strip ? TRUE : FALSE, NULL);
}

static inline int icb_webpsave_buffer(VipsImage *in, void **buffer, size_t *length,
                                      int quality, int lossless, int strip) {
    return vips_webpsave_buffer(in, buffer, length, "Q", quality,
                                "lossless", lossless ? TRUE : FALSE,
                                "strip", strip ? TRUE : FALSE, NULL);
}

static inline int icb_gifsave_buffer(VipsImage *in, void **buffer, size_t *length) {
    return vips_gifsave_buffer(in, buffer, length, NULL);
}

static inline int icb_heifsave_buffer(VipsImage *in, void **buffer, size_t *length,
                                      int quality, VipsForeignHeifCompression compression) {
    return vips_heifsave_buffer(in, buffer, length, "Q", quality,
                                "compression", compression, NULL);
}

#endif
