#ifndef CIMAGECODECS_SHIM_H
#define CIMAGECODECS_SHIM_H

// The only C header Swift sees for libpng and libjpeg(-turbo): the report
// scales large photos down with them (`PhotoScaler`). Swift calls nothing
// else of either library.
//
// Photo bytes come from the catalog and may be hostile. libjpeg reports
// errors by calling `error_exit`, which must not return: the only way
// back is `longjmp`, which Swift cannot do (nor survive: it would skip
// Swift's cleanup). So every libjpeg call happens here, in C, between a
// `setjmp` and its `longjmp`. libpng's simplified `png_image` API does the
// same inside libpng and returns 0 with a message instead. Dimensions are
// checked against the caller's bounds before any pixel is allocated.
//
// The module links neither library: CLibraryLoader defines the functions
// called here and loads the libraries on the first call, so that commands
// that scale no photo start without them.

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <png.h>
#include <jpeglib.h>

// What a decode returns (macros, which Swift imports as `Int32`
// constants to compare with the functions' results).
/// The pixels are in `*pixels` (free them with `CImageCodecs_free`).
#define CImageCodecs_decoded 1
/// The bytes are damaged or not of the format: `message` says why.
#define CImageCodecs_damaged 0
/// The image is larger than the caller's bounds (`*width`, `*height`
/// say how large); nothing was allocated.
#define CImageCodecs_tooLarge 2

/// Frees pixels or encoded bytes the functions below allocated.
static inline void CImageCodecs_free(void *pointer) {
    free(pointer);
}

static inline void CImageCodecs_copyMessage(char *message, size_t capacity, const char *text) {
    if (message == NULL || capacity == 0) { return; }
    strncpy(message, text, capacity - 1);
    message[capacity - 1] = '\0';
}

static inline int CImageCodecs_withinBounds(
    unsigned long width, unsigned long height, unsigned long maxSide, unsigned long maxPixels
) {
    return width > 0 && height > 0 && width <= maxSide && height <= maxSide
        && (unsigned long long)width * height <= maxPixels;
}

// MARK: - PNG (libpng's simplified API)

/// Decodes a PNG to 8-bit sRGB: RGBA when it has any transparency
/// (`*channels` 4), else RGB (`*channels` 3). `*width` and `*height` are
/// the image's size (also when it is too large).
static inline int CImageCodecs_pngDecode(
    const void *data, size_t size, unsigned long maxSide, unsigned long maxPixels,
    unsigned char **pixels, unsigned int *width, unsigned int *height, unsigned int *channels,
    char *message, size_t capacity
) {
    *pixels = NULL;
    *width = 0;
    *height = 0;
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size)) {
        CImageCodecs_copyMessage(message, capacity, image.message);
        png_image_free(&image);
        return CImageCodecs_damaged;
    }
    *width = image.width;
    *height = image.height;
    if (!CImageCodecs_withinBounds(image.width, image.height, maxSide, maxPixels)) {
        png_image_free(&image);
        return CImageCodecs_tooLarge;
    }
    int alpha = (image.format & PNG_FORMAT_FLAG_ALPHA) != 0;
    image.format = alpha ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    *channels = alpha ? 4 : 3;
    unsigned char *buffer = malloc(PNG_IMAGE_SIZE(image));
    if (buffer == NULL) {
        CImageCodecs_copyMessage(message, capacity, "out of memory");
        png_image_free(&image);
        return CImageCodecs_damaged;
    }
    if (!png_image_finish_read(&image, NULL, buffer, 0, NULL)) {
        CImageCodecs_copyMessage(message, capacity, image.message);
        free(buffer);
        png_image_free(&image);
        return CImageCodecs_damaged;
    }
    png_image_free(&image);
    *pixels = buffer;
    return CImageCodecs_decoded;
}

/// Encodes 8-bit RGB (`channels` 3) or RGBA (4) pixels as a PNG in
/// `*bytes` (free with `CImageCodecs_free`). Returns 1, or 0 with a message.
static inline int CImageCodecs_pngEncode(
    const unsigned char *pixels, unsigned int width, unsigned int height, unsigned int channels,
    void **bytes, size_t *size, char *message, size_t capacity
) {
    *bytes = NULL;
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = width;
    image.height = height;
    image.format = channels == 4 ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    png_alloc_size_t needed = 0;
    if (!png_image_write_to_memory(&image, NULL, &needed, 0, pixels, 0, NULL)) {
        CImageCodecs_copyMessage(message, capacity, image.message);
        png_image_free(&image);
        return 0;
    }
    void *buffer = malloc(needed);
    if (buffer == NULL) {
        CImageCodecs_copyMessage(message, capacity, "out of memory");
        png_image_free(&image);
        return 0;
    }
    if (!png_image_write_to_memory(&image, buffer, &needed, 0, pixels, 0, NULL)) {
        CImageCodecs_copyMessage(message, capacity, image.message);
        free(buffer);
        png_image_free(&image);
        return 0;
    }
    png_image_free(&image);
    *bytes = buffer;
    *size = needed;
    return 1;
}

// MARK: - JPEG (libjpeg-turbo)

/// libjpeg's error manager, with the way back to the `setjmp` of the
/// function that called libjpeg and room for the message.
struct CImageCodecs_JPEGError {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

/// `error_exit`: keeps the message and jumps back (it must not return).
static void CImageCodecs_jpegExit(j_common_ptr info) {
    struct CImageCodecs_JPEGError *error = (struct CImageCodecs_JPEGError *)info->err;
    (*info->err->format_message)(info, error->message);
    longjmp(error->jump, 1);
}

/// `emit_message`: warnings (a truncated file's "premature end of data")
/// are not printed; the image decodes as far as it goes.
static void CImageCodecs_jpegWarning(j_common_ptr info, int level) {
    (void)info;
    (void)level;
}

/// Decodes a JPEG to 8-bit RGB (`*channels` 3), letting libjpeg's DCT
/// scaling (`scale_denom` 2, 4 or 8) shrink it as far as it can while
/// its long side stays at least `fitSide`: a 4000-pixel photo for a
/// 480-pixel card decodes at 1/8 of the work and memory. `*width` and
/// `*height` are the image's own size, `*outWidth` and `*outHeight` the
/// decoded pixels'.
static inline int CImageCodecs_jpegDecode(
    const void *data, size_t size, unsigned long maxSide, unsigned long maxPixels, unsigned int fitSide,
    unsigned char **pixels, unsigned int *width, unsigned int *height,
    unsigned int *outWidth, unsigned int *outHeight, unsigned int *channels,
    char *message, size_t capacity
) {
    *pixels = NULL;
    *width = 0;
    *height = 0;
    struct jpeg_decompress_struct info;
    struct CImageCodecs_JPEGError error;
    unsigned char *volatile buffer = NULL;
    memset(&info, 0, sizeof info);
    info.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = CImageCodecs_jpegExit;
    error.manager.emit_message = CImageCodecs_jpegWarning;
    error.message[0] = '\0';
    if (setjmp(error.jump)) {
        free(buffer);
        jpeg_destroy_decompress(&info);
        CImageCodecs_copyMessage(message, capacity, error.message);
        return CImageCodecs_damaged;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, (const unsigned char *)data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);
    *width = info.image_width;
    *height = info.image_height;
    if (!CImageCodecs_withinBounds(info.image_width, info.image_height, maxSide, maxPixels)) {
        jpeg_destroy_decompress(&info);
        return CImageCodecs_tooLarge;
    }
    unsigned long longSide = info.image_width > info.image_height ? info.image_width : info.image_height;
    unsigned int denominator = 1;
    while (denominator < 8 && longSide / (denominator * 2) >= fitSide) { denominator *= 2; }
    info.scale_num = 1;
    info.scale_denom = denominator;
    info.out_color_space = JCS_RGB;
    jpeg_start_decompress(&info);
    size_t stride = (size_t)info.output_width * info.output_components;
    buffer = malloc(stride * info.output_height);
    if (buffer == NULL) {
        jpeg_destroy_decompress(&info);
        CImageCodecs_copyMessage(message, capacity, "out of memory");
        return CImageCodecs_damaged;
    }
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = buffer + stride * info.output_scanline;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    *outWidth = info.output_width;
    *outHeight = info.output_height;
    *channels = (unsigned int)info.output_components;
    jpeg_destroy_decompress(&info);
    *pixels = buffer;
    return CImageCodecs_decoded;
}

/// Encodes 8-bit RGB pixels as a JPEG of `quality` (0–100) in `*bytes`
/// (free with `CImageCodecs_free`). Returns 1, or 0 with a message.
static inline int CImageCodecs_jpegEncode(
    const unsigned char *pixels, unsigned int width, unsigned int height, int quality,
    void **bytes, size_t *size, char *message, size_t capacity
) {
    *bytes = NULL;
    struct jpeg_compress_struct info;
    struct CImageCodecs_JPEGError error;
    unsigned char *volatile output = NULL;
    unsigned long volatile outputSize = 0;
    memset(&info, 0, sizeof info);
    info.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = CImageCodecs_jpegExit;
    error.manager.emit_message = CImageCodecs_jpegWarning;
    error.message[0] = '\0';
    if (setjmp(error.jump)) {
        jpeg_destroy_compress(&info);
        free(output);
        CImageCodecs_copyMessage(message, capacity, error.message);
        return 0;
    }
    jpeg_create_compress(&info);
    jpeg_mem_dest(&info, (unsigned char **)&output, (unsigned long *)&outputSize);
    info.image_width = width;
    info.image_height = height;
    info.input_components = 3;
    info.in_color_space = JCS_RGB;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality, TRUE);
    jpeg_start_compress(&info, TRUE);
    size_t stride = (size_t)width * 3;
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + stride * info.next_scanline);
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    *bytes = output;
    *size = outputSize;
    return 1;
}

#endif
