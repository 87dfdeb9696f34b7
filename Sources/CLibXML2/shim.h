#ifndef CLIBXML2_SHIM_H
#define CLIBXML2_SHIM_H

// The only C header Swift sees for libxml2. The module map links no
// library: every libxml2 function called here or from Swift is defined by
// CLibraryLoader (LibXML2.c), which loads libxml2 on its first call, so
// that commands other than `import` start without libxml2 and ICU. A new
// function called from Swift needs its line there; the link fails until
// it has one. Everything Swift 6 cannot call
// directly (macros, global function pointers such as `xmlFree`) is wrapped
// here in a small `static inline` function prefixed with `CLibXML2_`.

// libxml2 2.9.14 is built with ICU, so <libxml/encoding.h> includes the
// system's <unicode/ucnv.h>. Foundation ships its own copy of ICU
// (module _FoundationICU) whose `UErrorCode` differs, and clang refuses the
// two definitions in one Swift module ("'UErrorCode' has different
// definitions in different modules"). Nothing here needs ICU: it only adds
// fields to `xmlCharEncodingHandler`, which Swift only ever sees through
// pointers. So hide it before any other libxml2 header is read.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/xmlreader.h>
#include <libxml/parser.h>
#include <libxml/xmlerror.h>
#include <libxml/tree.h>
#include <libxml/entities.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>

/// The address of libxml2's `xmlParserMaxDepth`, loading libxml2 if it is
/// not yet (defined in CLibraryLoader/LibXML2.c, with the functions below).
unsigned int *CLibraryLoader_xmlParserMaxDepth(void);

/// Frees memory that libxml2 allocated (`xmlFree` is a global function
/// pointer, which Swift 6's strict concurrency refuses to read directly).
static inline void CLibXML2_free(void *pointer) {
    xmlFree(pointer);
}

/// Raises libxml2's limit on element nesting to at least `depth`.
///
/// `xmlParserMaxDepth` (256 by default) is a mutable C global, which
/// Swift 6's strict concurrency refuses to touch. The property-list reader
/// raises it once, so that Apple's limit of 512 nested containers (plus
/// the `<plist>` element) is ours to enforce; it never lowers it, and it
/// stays far below what `XML_PARSE_HUGE` would allow.
///
/// libxml2 is loaded on first use (CLibraryLoader), so its variable is
/// reached through the address the loader finds, not linked by name.
static inline void CLibXML2_raiseParserMaxDepth(unsigned int depth) {
    unsigned int *maxDepth = CLibraryLoader_xmlParserMaxDepth();
    if (*maxDepth < depth) {
        *maxDepth = depth;
    }
}

/// Discards a message sent to libxml2's generic error channel; see
/// `CLibXML2_silenceGenericErrors`.
static inline void CLibXML2_discardGenericError(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

/// Stops libxml2 from printing the errors that bypass a reader's
/// structured error handler.
///
/// A few errors are raised without a parser context, so the reader's
/// handler never sees them: input conversion failures (`encoding error :
/// input conversion failed due to input error`, for `encoding="UTF-7"` or
/// a UCS-4 prefix followed by invalid bytes) and the `I/O error : encoder
/// error` that follows. libxml2 sends them to its generic error channel,
/// which prints to standard error. The parse still stops and the reader
/// still throws, so nothing is lost. Swift cannot write the variadic
/// handler itself. The channel is per thread: this sets it for the calling
/// thread and, as the default, for every thread that first uses libxml2
/// later.
static inline void CLibXML2_silenceGenericErrors(void) {
    xmlSetGenericErrorFunc(NULL, CLibXML2_discardGenericError);
    xmlThrDefSetGenericErrorFunc(NULL, CLibXML2_discardGenericError);
}

/// Where a push parser's cursor is, read in one call from a SAX callback:
/// the input buffer's start and the cursor in it, the cursor's line and
/// column, the bytes consumed before the buffer's start, and whether
/// libxml2 converts the input to UTF-8 (then `consumed` counts converted
/// bytes, not the input's).
///
/// `xmlParserCtxt` is a large struct with a nested `xmlParserInput`;
/// reading the five fields here keeps Swift from copying either.
typedef struct {
    const xmlChar *base;
    const xmlChar *cur;
    int line;
    int column;
    unsigned long consumed;
    int converted;
} CLibXML2_Cursor;

static inline CLibXML2_Cursor CLibXML2_cursor(xmlParserCtxtPtr context) {
    CLibXML2_Cursor cursor = {NULL, NULL, 0, 0, 0, 0};
    if (context != NULL && context->input != NULL) {
        cursor.base = context->input->base;
        cursor.cur = context->input->cur;
        cursor.line = context->input->line;
        cursor.column = context->input->col;
        cursor.consumed = context->input->consumed;
        cursor.converted = context->input->buf != NULL && context->input->buf->encoder != NULL;
    }
    return cursor;
}

/// Stops a push parser from inside one of its SAX callbacks: no further
/// callback, and `xmlParseChunk` returns as soon as the callback does.
///
/// This is what libxml2's own SAX2 handlers do when they give up
/// (`xmlSAX2ErrMemory`): `xmlStopParser` would also free the input
/// buffer, which the parser may still read on its way out of the
/// callback.
static inline void CLibXML2_stopFromCallback(xmlParserCtxtPtr context) {
    context->disableSAX = 1;
    context->instate = XML_PARSER_EOF;
}

/// Whether the parser has read the root element's end tag and is in the
/// epilog, where only comments, processing instructions and white space
/// may follow. Both loops set `XML_PARSER_EPILOG` there before reporting
/// `XML_ERR_DOCUMENT_END`; elsewhere that error means the input ended
/// inside the document.
static inline int CLibXML2_isAfterRoot(xmlParserCtxtPtr context) {
    return context->instate == XML_PARSER_EPILOG;
}

/// The byte at the parser's cursor, or -1 when libxml2 holds no byte it
/// has not parsed. libxml2's pull loop (`xmlParseDocument`) stops at a
/// NUL byte as if the input ended there (`RAW != 0`), and reports
/// nothing: this tells such a NUL from the end.
static inline int CLibXML2_unparsedByte(xmlParserCtxtPtr context) {
    if (context->input == NULL || context->input->cur == NULL || context->input->end == NULL
        || context->input->cur >= context->input->end) {
        return -1;
    }
    return *context->input->cur;
}

/// Whether the parser has seen a well-formedness error (`wellFormed`).
static inline int CLibXML2_isWellFormed(xmlParserCtxtPtr context) {
    return context->wellFormed;
}

#endif
