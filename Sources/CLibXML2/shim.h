#ifndef CLIBXML2_SHIM_H
#define CLIBXML2_SHIM_H

// The only C header Swift sees for libxml2. Everything Swift 6 cannot call
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
static inline void CLibXML2_raiseParserMaxDepth(unsigned int depth) {
    if (xmlParserMaxDepth < depth) {
        xmlParserMaxDepth = depth;
    }
}

#endif
