// swift-tools-version: 6.1
//
// bowties: a command-line catalog for collection items such as bow ties.
//
// Layers, bottom up:
//   CLibXML2      system library: module map and shim for libxml2's headers (CLibraryLoader loads it)
//   CImageCodecs  system library: module map and shim for libpng and libjpeg (the report's photo scaling)
//   CLibraryLoader C: libpng, libjpeg, libxml2 and libpq loaded on first use, so that other commands start without them
//   CLibPQ        system library: module map and shim for libpq (a catalog on PostgreSQL)
//   CZlib         system library: module map and shim for zlib (raw DEFLATE of Core Data's model cache)
//   CMalloc       system library: module map and shim for glibc's <malloc.h> (bowties-serve's malloc arenas)
//   PropertyList  streaming XML, binary property-list, JSON and CSV readers; knows nothing of bow ties
//   CoreDataStore a read-only reader of any Core Data SQLite store; knows nothing of bow ties
//   BowTiesKit    model, validation, transformers, photo storage, store, import, export
//   bowties       the command-line tool: one file per subcommand
//   bowties-serve `bowties serve`: the catalog in the browser (Hummingbird,
//                 SwiftNIO), a separate executable so that `bowties` links none of it
import Foundation
import PackageDescription

/// Where libxml2-dev puts libxml2's headers (`pkg-config --cflags
/// libxml-2.0` says the same on Debian): CLibXML2's shim includes
/// `<libxml/…>` from here.
let libxml2Headers = "/usr/include/libxml2"

/// Linker scripts that turn `-lsqlite3` and `-lstdc++` into their static
/// archives (`scripts/link-static/`), searched before the system's folders
/// in release builds of `bowties`, when both archives are there (Debian's
/// libsqlite3-dev and libstdc++-12-dev install them). Binding the two shared
/// libraries' symbols was a third of what every command did before `main`
/// (bench/README.md, "Point commands, session 11").
let staticLinkFlags: [String] = {
    let root = String(#filePath.dropLast("Package.swift".count))
    let archives = ["x86_64", "aarch64"].map { "/usr/lib/\($0)-linux-gnu/libsqlite3.a" }
    guard archives.contains(where: FileManager.default.fileExists(atPath:)),
        let compilers = try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/gcc"),
        compilers.contains(where: { triple in
            let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/gcc/\(triple)")) ?? []
            return versions.contains { FileManager.default.fileExists(atPath: "/usr/lib/gcc/\(triple)/\($0)/libstdc++.a") }
        })
    else { return [] }
    return ["-L", root + "scripts/link-static"]
}()

/// The functions everyday commands run, laid side by side in release
/// builds of `bowties` (lld's `--symbol-ordering-file`; the list is
/// written by `scripts/update-link-order`). The kernel maps code in
/// 64 KiB runs around each page a process touches: the megabyte a
/// PostgreSQL import ran was spread over 22 MB of code and kept 10 to
/// 15 MB of the binary resident (bench/results/postgres.md, "Session
/// 13"). Names the list holds that the binary lacks (a renamed function,
/// a build without the static Swift libraries) are skipped without a word.
let linkOrderFlags: [String] = {
    let list = String(#filePath.dropLast("Package.swift".count)) + "scripts/link-order/bowties.txt"
    guard FileManager.default.fileExists(atPath: list) else { return [] }
    return ["-Xlinker", "--symbol-ordering-file=" + list, "-Xlinker", "--no-warn-symbol-ordering"]
}()

/// Release builds of bowties' own modules reach concrete generic types
/// (`Set<UInt8>`, `[String: Bool]`) through metadata accessor functions,
/// not mangled names: a mangled name is demangled at its first use, and its
/// generic requirements (`String: Hashable`) checked by a scan of every
/// protocol conformance in the executable.
///
/// And each function in a section of its own (`-function-sections`; swiftc
/// puts a file's functions in one `.text` otherwise), so that the release
/// link can lay the ones commands run side by side (`linkOrderFlags`).
let metadataAccessSettings: [SwiftSetting] = [
    .unsafeFlags(
        ["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors", "-Xfrontend", "-function-sections"],
        .when(configuration: .release)
    )
]

let package = Package(
    name: "bowties",
    products: [
        .executable(name: "bowties", targets: ["bowties"]),
        .executable(name: "bowties-serve", targets: ["bowties-serve"]),
        .library(name: "PropertyList", targets: ["PropertyList"]),
        .library(name: "BowTiesKit", targets: ["BowTiesKit"]),
        .library(name: "CoreDataStore", targets: ["CoreDataStore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.0"..<"4.0.0"),
        .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.0"),
        // `bowties serve`'s HTTP server (only bowties-serve links it).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // Graceful shutdown (Hummingbird's own): event streams end with the server.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // HTTP's field names and statuses, as Hummingbird speaks them.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // libxml2's headers only: its functions are defined by CLibraryLoader,
        // which loads libxml2 on first use (`import`), so that no
        // other command pays for libxml2, ICU, liblzma and zlib at start-up.
        // No `pkgConfig` here: SwiftPM would put pkg-config's `-lxml2` on the
        // link line, and the executable would name libxml2 again. The headers
        // are found at libxml2-dev's fixed path instead (`libxml2Headers`).
        .systemLibrary(
            name: "CLibXML2",
            providers: [.apt(["libxml2-dev"])]
        ),
        .systemLibrary(
            name: "CImageCodecs",
            providers: [.apt(["libpng-dev", "libjpeg62-turbo-dev"])]
        ),
        // libpq, PostgreSQL's client library: no pkg-config, whose -lpq
        // would make every command load it (CLibraryLoader does, on the
        // first call).
        .systemLibrary(
            name: "CLibPQ",
            providers: [.apt(["libpq-dev"])]
        ),
        // libpng's, libjpeg's, libxml2's and libpq's functions, loaded when
        // first called (CImageCodecs, CLibXML2 and CLibPQ name no library
        // to link).
        .target(
            name: "CLibraryLoader",
            cSettings: [.unsafeFlags(["-I\(libxml2Headers)"])]
        ),
        // sqlite3_config, whose variadic arguments Swift cannot pass.
        .target(name: "CSQLiteSettings"),
        .systemLibrary(
            name: "CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // glibc's mallopt and M_ARENA_MAX (<malloc.h>, which Swift's Glibc
        // module leaves out), for bowties-serve's MemoryPolicy.
        .systemLibrary(name: "CMalloc"),
        .target(
            name: "PropertyList",
            dependencies: ["CLibXML2", "CLibraryLoader"],
            swiftSettings: [.unsafeFlags(["-Xcc", "-I\(libxml2Headers)"])] + metadataAccessSettings
        ),
        .target(
            name: "CoreDataStore",
            dependencies: [
                "CZlib",
                // SQLite's C API (GRDB's module for the system SQLite):
                // a row loop as lean as the sqlite3 shell's.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: metadataAccessSettings
        ),
        .target(
            name: "BowTiesKit",
            dependencies: [
                "PropertyList",
                // Core Data stores, for `import STORE.sqlite`.
                "CoreDataStore",
                // libpng and libjpeg, to scale the report's large photos down.
                "CImageCodecs", "CLibraryLoader",
                // libpq, for a catalog at a postgresql:// address
                // (Store/PostgreSQL/ only).
                "CLibPQ",
                // SQLite's process-wide settings, made before the first connection.
                "CSQLiteSettings",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for the import's prepared insert (GRDB's
                // own module for it; the system SQLite GRDB links).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: metadataAccessSettings
        ),
        .executableTarget(
            name: "bowties",
            dependencies: [
                "BowTiesKit",
                "CoreDataStore",
                // `import` loads libxml2 before it opens the catalog.
                "PropertyList",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: metadataAccessSettings,
            // What the dynamic loader does before `main` in every process
            // (bench/README.md, "Point commands, session 8"), release builds
            // only: lld packs the executable's 93,000 relative relocations
            // (DT_RELR, glibc 2.36) into 18 KB instead of 2.2 MB of RELA; and
            // the executable exports none of its 13,500 symbols, which swiftc
            // exports for `dladdr` (the Swift runtime's first `dladdr` scanned
            // them all; crash backtraces read the symbol table from the file);
            // and SQLite and the C++ library are linked from their static
            // archives (`staticLinkFlags`); and the functions commands run
            // are laid together (`linkOrderFlags`).
            linkerSettings: [
                .unsafeFlags(
                    [
                        "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                        "-Xlinker", "--no-export-dynamic",
                    ] + staticLinkFlags + linkOrderFlags,
                    .when(configuration: .release)
                )
            ]
        ),
        // `bowties serve` runs this, found beside its own executable (as git
        // runs `git-*`): SwiftNIO's start-up and size stay out of every
        // other command.
        .executableTarget(
            name: "bowties-serve",
            dependencies: [
                "BowTiesKit",
                "CMalloc",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "PropertyListTests",
            dependencies: ["PropertyList"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "BowTiesKitTests",
            dependencies: [
                "BowTiesKit", "PropertyList", .product(name: "GRDB", package: "GRDB.swift"),
                // An independent RFC 4180 parser: exports must read back
                // with it exactly.
                .product(name: "CSV", package: "CSV.swift"),
            ]
        ),
        .testTarget(
            name: "CoreDataStoreTests",
            dependencies: ["CoreDataStore"]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["bowties", "bowties-serve"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
