// swift-tools-version: 6.1
//
// libFuzzer targets for bowties. A package of its own, so that the
// product's Package.swift never depends on fuzzing; it uses the root
// package by path. Build and run a target with `fuzz/run TARGET SECONDS`
// (see fuzz/README.md).
//
//   FuzzPropertyListReader  PropertyListReader on arbitrary bytes
//   FuzzBinaryPropertyListReader  BinaryPropertyListReader on arbitrary bytes
//   FuzzPushParser          PropertyListReader's SAX2 push parser, in chunks of every size
//   FuzzRecordDecoder       the importer's record decoding on arbitrary bytes
//   FuzzJSONReader          JSONReader (array, JSON Lines) and their records' decoding
//   FuzzCSVReader           CSVReader (CSV, TSV) and their records' decoding
//   FuzzKeyedArchive        CoreDataStore's NSKeyedArchiver decoder (transformables, the model cache)
import PackageDescription

let package = Package(
    name: "bowties-fuzz",
    dependencies: [
        .package(name: "bowties", path: "..")
    ],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [.product(name: "PropertyList", package: "bowties")]
        ),
        .executableTarget(
            name: "FuzzPropertyListReader",
            dependencies: ["FuzzSupport", .product(name: "PropertyList", package: "bowties")]
        ),
        .executableTarget(
            name: "FuzzPushParser",
            dependencies: ["FuzzSupport", .product(name: "PropertyList", package: "bowties")]
        ),
        .executableTarget(
            name: "FuzzBinaryPropertyListReader",
            dependencies: ["FuzzSupport", .product(name: "PropertyList", package: "bowties")]
        ),
        .executableTarget(
            name: "FuzzRecordDecoder",
            dependencies: [
                "FuzzSupport",
                .product(name: "PropertyList", package: "bowties"),
                .product(name: "BowTiesKit", package: "bowties"),
            ]
        ),
        .executableTarget(
            name: "FuzzJSONReader",
            dependencies: [
                "FuzzSupport",
                .product(name: "PropertyList", package: "bowties"),
                .product(name: "BowTiesKit", package: "bowties"),
            ]
        ),
        .executableTarget(
            name: "FuzzCSVReader",
            dependencies: [
                "FuzzSupport",
                .product(name: "PropertyList", package: "bowties"),
                .product(name: "BowTiesKit", package: "bowties"),
            ]
        ),
        .executableTarget(
            name: "FuzzKeyedArchive",
            dependencies: [.product(name: "CoreDataStore", package: "bowties")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
