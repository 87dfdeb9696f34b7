#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

// The only C header Swift sees for zlib. Core Data stores its model
// (`Z_MODELCACHE`) as raw DEFLATE, which only zlib's `inflateInit2` with
// negative window bits reads; `inflateInit2` is a macro, so it is wrapped
// here in a `static inline` function prefixed with `CZlib_`.

#include <zlib.h>

/// `inflateInit2(stream, -15)`: raw DEFLATE (no zlib or gzip header), the
/// largest window. A macro in zlib.h, which Swift cannot call.
static inline int CZlib_inflateInitRaw(z_stream *stream) {
    return inflateInit2(stream, -15);
}

#endif
