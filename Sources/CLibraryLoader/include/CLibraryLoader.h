#ifndef CLIBRARYLOADER_H
#define CLIBRARYLOADER_H

// Shared libraries that only some commands need, loaded the first time one
// of their functions is called instead of when bowties starts.
//
// Every process pays for the libraries its executable names (DT_NEEDED):
// the dynamic loader maps them, relocates them and binds their symbols
// before `main`, and their pages fault in. bowties linked libpng and
// libjpeg for the report's photo scaling alone, and every `show` or `wear`
// paid for them (bench/README.md, "Point commands"). Here each function
// bowties calls of such a library is defined under the library's own name
// (a trampoline): the first call `dlopen`s the library and every call
// jumps to the function `dlsym` found. So the code that calls them (the
// shims in CImageCodecs) is unchanged, and the executable no longer names
// the library.
//
// A library that cannot be loaded ends the process with a message on
// standard error and status 69 (EX_UNAVAILABLE), as bowties' ExitStatus
// documents: before, the executable would not have started at all.
//
// To call another function of a library listed here, add a line for it to
// that library's file (ImageCodecs.c); the link fails until it is there.

/// Whether `soname` (e.g. "libpng16.so.16") is loaded in this process:
/// for tests that check a command did not load it.
int CLibraryLoader_isLoaded(const char *soname);

#endif
