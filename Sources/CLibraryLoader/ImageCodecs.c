// libpng and libjpeg, which the report calls to scale large photos down
// (CImageCodecs' shim.h): loaded by the first call, not at every start.
// One line per function the shim calls.

#include "Loader.h"

#include <stdio.h>
#include <png.h>
#include <jpeglib.h>

static struct CLibraryLoader_Library png = {
    .soname = "libpng" CLIBRARYLOADER_EXPAND(PNG_LIBPNG_VER_DLLNUM) ".so." CLIBRARYLOADER_EXPAND(PNG_LIBPNG_VER_SONUM),
    .purpose = "reading and scaling PNG photos",
};

static struct CLibraryLoader_Library jpeg = {
    .soname = "libjpeg.so." CLIBRARYLOADER_EXPAND(JPEG_LIB_VERSION),
    .purpose = "reading and scaling JPEG photos",
};

CLIBRARYLOADER_FORWARD(png, int, png_image_begin_read_from_memory,
    (png_imagep image, png_const_voidp memory, size_t size), (image, memory, size))
CLIBRARYLOADER_FORWARD(png, int, png_image_finish_read,
    (png_imagep image, png_const_colorp background, void *buffer, png_int_32 row_stride, void *colormap),
    (image, background, buffer, row_stride, colormap))
CLIBRARYLOADER_FORWARD_VOID(png, png_image_free, (png_imagep image), (image))
CLIBRARYLOADER_FORWARD(png, int, png_image_write_to_memory,
    (png_imagep image, void *memory, png_alloc_size_t *memory_bytes, int convert_to_8_bit, const void *buffer,
        png_int_32 row_stride, const void *colormap),
    (image, memory, memory_bytes, convert_to_8_bit, buffer, row_stride, colormap))

CLIBRARYLOADER_FORWARD(jpeg, struct jpeg_error_mgr *, jpeg_std_error, (struct jpeg_error_mgr *err), (err))
CLIBRARYLOADER_FORWARD_VOID(jpeg, jpeg_CreateDecompress, (j_decompress_ptr cinfo, int version, size_t structsize),
    (cinfo, version, structsize))
CLIBRARYLOADER_FORWARD_VOID(jpeg, jpeg_CreateCompress, (j_compress_ptr cinfo, int version, size_t structsize),
    (cinfo, version, structsize))
CLIBRARYLOADER_FORWARD_VOID(jpeg, jpeg_destroy_decompress, (j_decompress_ptr cinfo), (cinfo))
CLIBRARYLOADER_FORWARD_VOID(jpeg, jpeg_destroy_compress, (j_compress_ptr cinfo), (cinfo))
CLIBRARYLOADER_FORWARD_VOID(jpeg, jpeg_mem_src, (j_decompress_ptr cinfo, const unsigned char *inbuffer, unsigned long insize),
    (cinfo, inbuffer, insize))
CLIBRARYLOADER_FORWARD_VOID(jpeg, jpeg_mem_dest, (j_compress_ptr cinfo, unsigned char **outbuffer, unsigned long *outsize),
    (cinfo, outbuffer, outsize))
CLIBRARYLOADER_FORWARD(jpeg, int, jpeg_read_header, (j_decompress_ptr cinfo, boolean require_image),
    (cinfo, require_image))
CLIBRARYLOADER_FORWARD(jpeg, boolean, jpeg_start_decompress, (j_decompress_ptr cinfo), (cinfo))
CLIBRARYLOADER_FORWARD(jpeg, JDIMENSION, jpeg_read_scanlines,
    (j_decompress_ptr cinfo, JSAMPARRAY scanlines, JDIMENSION max_lines), (cinfo, scanlines, max_lines))
CLIBRARYLOADER_FORWARD(jpeg, boolean, jpeg_finish_decompress, (j_decompress_ptr cinfo), (cinfo))
CLIBRARYLOADER_FORWARD_VOID(jpeg, jpeg_set_defaults, (j_compress_ptr cinfo), (cinfo))
CLIBRARYLOADER_FORWARD_VOID(jpeg, jpeg_set_quality, (j_compress_ptr cinfo, int quality, boolean force_baseline),
    (cinfo, quality, force_baseline))
CLIBRARYLOADER_FORWARD_VOID(jpeg, jpeg_start_compress, (j_compress_ptr cinfo, boolean write_all_tables),
    (cinfo, write_all_tables))
CLIBRARYLOADER_FORWARD(jpeg, JDIMENSION, jpeg_write_scanlines,
    (j_compress_ptr cinfo, JSAMPARRAY scanlines, JDIMENSION num_lines), (cinfo, scanlines, num_lines))
CLIBRARYLOADER_FORWARD_VOID(jpeg, jpeg_finish_compress, (j_compress_ptr cinfo), (cinfo))
