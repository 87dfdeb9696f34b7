import BowTiesKit
import Foundation

/// Finds the bundled sample data from any working directory.
enum SampleData {
    /// `$BOWTIES_SAMPLE_DATA`, else `SampleData/SampleData.plist` in a folder
    /// above the executable (the package when run from `.build/`), else in
    /// the package this file was compiled from.
    static func locate() throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["BOWTIES_SAMPLE_DATA"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        var candidates: [URL] = []
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<6 {
            candidates.append(folder)
            folder = folder.deletingLastPathComponent()
        }
        // Sources/bowties/Support/SampleData.swift -> the package folder.
        let package = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(package)
        for candidate in candidates {
            let plist = candidate.appendingPathComponent("SampleData/SampleData.plist")
            if FileManager.default.isReadableFile(atPath: plist.path) { return plist }
        }
        throw CatalogError(
            .inputNotFound, "the sample data (SampleData/SampleData.plist) was not found",
            hint: "Pass the file to import, or set BOWTIES_SAMPLE_DATA to its path.")
    }
}
