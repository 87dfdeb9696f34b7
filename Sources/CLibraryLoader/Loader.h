#ifndef CLIBRARYLOADER_LOADER_H
#define CLIBRARYLOADER_LOADER_H

// One library loaded on first use: its soname, and its handle once opened.
struct CLibraryLoader_Library {
    const char *soname;
    /// What the library is for, in the message when it cannot be loaded.
    const char *purpose;
    /// Set, with `handle` (NULL when it failed), by the first call.
    int opened;
    void *handle;
};

/// The address of `name` in `library`, which is opened on the first call;
/// `*slot` caches it. Ends the process when either cannot be found.
void *CLibraryLoader_symbol(struct CLibraryLoader_Library *library, const char *name, void **slot);

/// `name` forwards to the library's function of the same name: `params`
/// is its parameter list, `args` the call's arguments.
#define CLIBRARYLOADER_FORWARD(library, ret, name, params, args)                                     \
    ret name params {                                                                                \
        static void *slot;                                                                           \
        return ((__typeof__(&name))CLibraryLoader_symbol(&library, #name, &slot))args;              \
    }

/// The same for a function that returns nothing.
#define CLIBRARYLOADER_FORWARD_VOID(library, name, params, args)                                    \
    void name params {                                                                               \
        static void *slot;                                                                           \
        ((__typeof__(&name))CLibraryLoader_symbol(&library, #name, &slot))args;                     \
    }

#define CLIBRARYLOADER_STRING(x) #x
#define CLIBRARYLOADER_EXPAND(x) CLIBRARYLOADER_STRING(x)

#endif
