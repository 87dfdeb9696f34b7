// swift-tools-version: 6.1
//
// The bench's Swift alternative for an import: Foundation's
// PropertyListSerialization reads the whole file, GRDB inserts it in one
// transaction. A package of its own, so that GRDB at this version and the
// bench's code never reach users of bowties.
import PackageDescription

let package = Package(
    name: "bench-foundation",
    products: [
        .executable(name: "foundation-import", targets: ["foundation-import"])
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0")
    ],
    targets: [
        .executableTarget(
            name: "foundation-import",
            dependencies: [.product(name: "GRDB", package: "GRDB.swift")]
        )
    ],
    swiftLanguageModes: [.v6]
)
