#ifndef CLIBPQ_SHIM_H
#define CLIBPQ_SHIM_H

// The only C header Swift sees for libpq, PostgreSQL's client library
// (Debian's libpq-dev): the PostgreSQL store (BowTiesKit's
// Store/PostgreSQL/, the only Swift that imports this module) connects,
// runs statements and cancels them through it.
//
// The module links no library: CLibraryLoader defines each libpq function
// Swift calls (LibPQ.c) and loads libpq.so.5 on the first call, so that
// commands on an SQLite catalog never map libpq, nor the libraries it
// needs (libssl, libgssapi, libldap…). A function Swift starts to call
// needs its line in LibPQ.c, or the link fails.
//
// Not pkg-config: SwiftPM would put its `-lpq` on the link line, and the
// executable would name libpq (DT_NEEDED) however little it called it.

#include <postgresql/libpq-fe.h>

#endif
