#include "icb_jpeg.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf decline;
} icb_jpeg_errors;

typedef struct {
    struct jpeg_progress_mgr manager;
    int max_scans;
} icb_jpeg_progress;

// Errors and warnings end the decode: libvips, which fails a truncated JPEG and reports
// the others its own way, gets the bytes instead.
static void icb_jpeg_error_exit(j_common_ptr info) {
    longjmp(((icb_jpeg_errors *)info->err)->decline, 1);
}

static void icb_jpeg_emit_message(j_common_ptr info, int level) {
    if (level < 0) longjmp(((icb_jpeg_errors *)info->err)->decline, 1);
}

static void icb_jpeg_output_message(j_common_ptr info) { (void)info; }

// A progressive JPEG may hold thousands of scans, each a pass over every coefficient: a small
// file that costs seconds. libjpeg calls this as it reads; past the limit, libvips decides.
static void icb_jpeg_count_scans(j_common_ptr info) {
    icb_jpeg_progress *progress = (icb_jpeg_progress *)info->progress;
    if (((j_decompress_ptr)info)->input_scan_number > progress->max_scans)
        longjmp(((icb_jpeg_errors *)info->err)->decline, 1);
}

// Whether an APP1 segment starts "Exif", as libvips tests before reading an orientation.
static int icb_jpeg_has_exif(j_decompress_ptr info) {
    for (jpeg_saved_marker_ptr marker = info->marker_list; marker; marker = marker->next)
        if (marker->marker == JPEG_APP0 + 1 && marker->data_length >= 4 && memcmp(marker->data, "Exif", 4) == 0)
            return 1;
    return 0;
}

int icb_jpeg_decode_rgb(const void *data, size_t length, int max_side, long max_pixels, int max_scans,
                        icb_jpeg_rgb *out) {
    struct jpeg_decompress_struct info;
    icb_jpeg_errors errors;
    unsigned char *volatile pixels = NULL;

    info.err = jpeg_std_error(&errors.manager);
    errors.manager.error_exit = icb_jpeg_error_exit;
    errors.manager.emit_message = icb_jpeg_emit_message;
    errors.manager.output_message = icb_jpeg_output_message;
    if (setjmp(errors.decline)) {
        free(pixels);
        jpeg_destroy_decompress(&info);
        return 0;
    }
    jpeg_create_decompress(&info);
    icb_jpeg_progress progress = { .manager = { .progress_monitor = icb_jpeg_count_scans }, .max_scans = max_scans };
    info.progress = &progress.manager;
    jpeg_mem_src(&info, (const unsigned char *)data, (unsigned long)length);
    jpeg_save_markers(&info, JPEG_APP0 + 1, 8);  // enough to see "Exif"
    jpeg_read_header(&info, TRUE);

    long width = info.image_width, height = info.image_height;
    int plain_colour = info.num_components == 3 && info.out_color_space == JCS_RGB
        && (info.jpeg_color_space == JCS_YCbCr || info.jpeg_color_space == JCS_RGB);
    if (!plain_colour || width > max_side || height > max_side || width * height > max_pixels
        || icb_jpeg_has_exif(&info))
        longjmp(errors.decline, 1);

    jpeg_start_decompress(&info);
    if (info.output_components != 3 || (long)info.output_width != width || (long)info.output_height != height)
        longjmp(errors.decline, 1);
    size_t row = (size_t)width * 3;
    pixels = malloc(row * (size_t)height);
    if (!pixels) longjmp(errors.decline, 1);
    while (info.output_scanline < info.output_height) {
        JSAMPROW next = pixels + row * info.output_scanline;
        jpeg_read_scanlines(&info, &next, 1);
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);

    out->pixels = pixels;
    out->length = row * (size_t)height;
    out->width = (int)width;
    out->height = (int)height;
    return 1;
}
