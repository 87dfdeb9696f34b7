// swift-tools-version: 6.1
//
// The floor of a Swift command's start: a program that imports Foundation
// and prints one line. bench/run builds it as bowties is built (release,
// `--static-swift-stdlib`), so `bowties --version` and `bowties --help`
// are compared with what any such program pays to start and exit. A
// package of its own, with no dependencies, that never reaches users of
// bowties.
import PackageDescription

let package = Package(
    name: "bench-floor",
    products: [
        .executable(name: "floor", targets: ["floor"])
    ],
    targets: [
        .executableTarget(name: "floor")
    ],
    swiftLanguageModes: [.v6]
)
