import Foundation
import PropertyList
import Testing

/// The URL of a file under `Fixtures/`.
func fixtureURL(_ name: String) throws -> URL {
    let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures")
    return try #require(url, "missing fixture \(name)")
}

/// Wraps `body` in the standard XML declaration, DOCTYPE and `<plist>`.
func plist(_ body: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    \(body)
    </plist>
    """
}

/// Reads a whole in-memory document named `test.plist`.
func read(_ document: String) throws -> PropertyListItem {
    try PropertyListReader.read(data: Data(document.utf8), displayName: "test.plist")
}

/// Reads the single root value of `<plist>body</plist>`.
func readValue(_ body: String) throws -> PropertyListValue {
    try read(plist(body)).value
}

/// The `PropertyListError` that `body` throws; records an issue and returns
/// `nil` if it throws something else or nothing.
func propertyListError(
    sourceLocation: Testing.SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> PropertyListError? {
    do {
        try body()
        Issue.record("expected a PropertyListError, nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as PropertyListError {
        return error
    } catch {
        Issue.record("expected a PropertyListError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The error reading `document` (whole) throws.
func readingError(
    _ document: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> PropertyListError? {
    propertyListError(sourceLocation: sourceLocation) { _ = try read(document) }
}

extension PropertyListValue {
    var dictionary: PropertyListDictionary? {
        if case .dictionary(let dictionary) = self { dictionary } else { nil }
    }

    var array: [PropertyListItem]? {
        if case .array(let items) = self { items } else { nil }
    }
}

/// A fresh temporary directory, removed by the caller.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("PropertyListTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
