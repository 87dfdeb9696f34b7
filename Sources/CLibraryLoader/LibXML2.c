// libxml2, which `import` calls to parse XML property lists (PropertyList's
// XMLPushParser, through CLibXML2's shim.h): loaded by the first call, not
// at every start. libxml2 brings ICU (libicuuc, libicudata), liblzma and
// zlib with it: about 2.9 M instructions and 120 page faults of the
// dynamic loader's work in every process that names it (bench/README.md,
// "Point commands, session 8"). One line per function or variable that
// Swift or the shim uses.

#include "Loader.h"

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/valid.h>
#include <libxml/xmlerror.h>

static struct CLibraryLoader_Library xml2 = {
    // libxml2's soname has been libxml2.so.2 since 2.0 (its headers name
    // no macro for it, as libpng's and libjpeg's do).
    .soname = "libxml2.so.2",
    .purpose = "`import`",
};

CLIBRARYLOADER_FORWARD_VOID(xml2, xmlInitParser, (void), ())
CLIBRARYLOADER_FORWARD(xml2, xmlParserCtxtPtr, xmlCreatePushParserCtxt,
    (xmlSAXHandlerPtr sax, void *user_data, const char *chunk, int size, const char *filename),
    (sax, user_data, chunk, size, filename))
CLIBRARYLOADER_FORWARD(xml2, xmlParserCtxtPtr, xmlCreateIOParserCtxt,
    (xmlSAXHandlerPtr sax, void *user_data, xmlInputReadCallback ioread, xmlInputCloseCallback ioclose,
        void *ioctx, xmlCharEncoding enc),
    (sax, user_data, ioread, ioclose, ioctx, enc))
CLIBRARYLOADER_FORWARD(xml2, int, xmlParseDocument, (xmlParserCtxtPtr ctxt), (ctxt))
CLIBRARYLOADER_FORWARD(xml2, int, xmlCtxtUseOptions, (xmlParserCtxtPtr ctxt, int options), (ctxt, options))
CLIBRARYLOADER_FORWARD(xml2, int, xmlParseChunk, (xmlParserCtxtPtr ctxt, const char *chunk, int size, int terminate),
    (ctxt, chunk, size, terminate))
CLIBRARYLOADER_FORWARD_VOID(xml2, xmlFreeParserCtxt, (xmlParserCtxtPtr ctxt), (ctxt))
CLIBRARYLOADER_FORWARD_VOID(xml2, xmlFreeEnumeration, (xmlEnumerationPtr cur), (cur))
CLIBRARYLOADER_FORWARD_VOID(xml2, xmlSetGenericErrorFunc, (void *ctx, xmlGenericErrorFunc handler), (ctx, handler))
CLIBRARYLOADER_FORWARD_VOID(xml2, xmlThrDefSetGenericErrorFunc, (void *ctx, xmlGenericErrorFunc handler),
    (ctx, handler))

/// `xmlParserMaxDepth` is a variable: its address, found as a function's is
/// (declared in CLibXML2's shim.h, which raises it).
unsigned int *CLibraryLoader_xmlParserMaxDepth(void) {
    static void *slot;
    return (unsigned int *)CLibraryLoader_symbol(&xml2, "xmlParserMaxDepth", &slot);
}
