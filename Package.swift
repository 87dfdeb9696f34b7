// swift-tools-version: 6.1
//
// bowties: a command-line catalog for collection items such as bow ties.
//
// Layers, bottom up:
//   CLibXML2      system library: module map and shim for libxml2 (C stays here)
//   CImageCodecs  system library: module map and shim for libpng and libjpeg (the report's photo scaling)
//   CLibraryLoader C: libpng and libjpeg loaded on first use, so that other commands start without them
//   CZlib         system library: module map and shim for zlib (raw DEFLATE of Core Data's model cache)
//   PropertyList  streaming XML, binary property-list, JSON and CSV readers; knows nothing of bow ties
//   CoreDataStore a read-only reader of any Core Data SQLite store; knows nothing of bow ties
//   BowTiesKit    model, validation, transformers, photo storage, store, import, export
//   bowties       the command-line tool: one file per subcommand
import PackageDescription

let package = Package(
    name: "bowties",
    products: [
        .executable(name: "bowties", targets: ["bowties"]),
        .library(name: "PropertyList", targets: ["PropertyList"]),
        .library(name: "BowTiesKit", targets: ["BowTiesKit"]),
        .library(name: "CoreDataStore", targets: ["CoreDataStore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.0"..<"4.0.0"),
        .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev", "pkg-config"])]
        ),
        .systemLibrary(
            name: "CImageCodecs",
            providers: [.apt(["libpng-dev", "libjpeg62-turbo-dev"])]
        ),
        // libpng's and libjpeg's functions, loaded when first called
        // (CImageCodecs names no library to link).
        .target(name: "CLibraryLoader"),
        // sqlite3_config, whose variadic arguments Swift cannot pass.
        .target(name: "CSQLiteSettings"),
        .systemLibrary(
            name: "CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(
            name: "PropertyList",
            dependencies: ["CLibXML2"]
        ),
        .target(
            name: "CoreDataStore",
            dependencies: [
                "CZlib",
                // SQLite's C API (GRDB's module for the system SQLite):
                // a row loop as lean as the sqlite3 shell's.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "BowTiesKit",
            dependencies: [
                "PropertyList",
                // Core Data stores, for `import STORE.sqlite`.
                "CoreDataStore",
                // libpng and libjpeg, to scale the report's large photos down.
                "CImageCodecs", "CLibraryLoader",
                // SQLite's process-wide settings, made before the first connection.
                "CSQLiteSettings",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for the import's prepared insert (GRDB's
                // own module for it; the system SQLite GRDB links).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "bowties",
            dependencies: [
                "BowTiesKit",
                "CoreDataStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
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
            dependencies: ["bowties"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
