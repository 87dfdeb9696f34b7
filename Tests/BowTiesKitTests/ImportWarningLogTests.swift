import PropertyList
import Testing

@testable import BowTiesKit

@Suite("Import warnings, bounded")
struct ImportWarningLogTests {
    private func location(_ line: Int) -> PropertyList.SourceLocation {
        PropertyList.SourceLocation(file: "t.plist", line: line, column: 3)
    }

    @Test func theFirstTwentyInFileOrderThenACountPerKind() {
        var log = ImportWarningLog()
        for record in 1...30 {
            log.add(.unknownKey, at: location(record), "unknown key \"k\(record)\" ignored")
            log.add(.missingImage, at: location(record), "record \(record): image not found")
        }
        let (shown, more) = log.finish { kind, count, plural in "\(kind.rawValue) \(count) \(plural)" }
        #expect(shown.count == ImportWarningLog.limit)
        #expect(shown.map(\.kind) == Array(repeating: [.unknownKey, .missingImage], count: 10).flatMap { $0 })
        #expect(shown.last?.description == "t.plist:10:3: record 10: image not found")
        // Record 11's unknown key was the first one not shown.
        #expect(more.map(\.kind) == [.unknownKey, .missingImage])
        #expect(more.map(\.count) == [20, 20])
        #expect(more.map(\.isExact) == [true, true])
        #expect(more.map(\.message) == ["unknownKey 20 true", "missingImage 20 true"])
    }

    @Test func messagesPastTheLimitAreNeverBuilt() {
        var log = ImportWarningLog()
        var built = 0
        func message() -> String {
            built += 1
            return "missing"
        }
        for _ in 0..<1_000 {
            log.add(.missingImage, at: nil, message())
        }
        #expect(built == ImportWarningLog.limit)
        let (_, more) = log.finish { _, count, _ in count }
        #expect(more.map(\.message) == ["980"])
    }

    @Test func countsReadGroupedAndALowerBoundSaysSo() {
        var log = ImportWarningLog()
        for _ in 0..<(ImportWarningLog.limit + 1_234_567) {
            log.add(.missingImage, at: nil, "missing")
        }
        log.markInexact(.unknownKey)
        let (_, more) = log.finish { kind, count, plural in "\(kind.rawValue): \(count), plural \(plural)" }
        #expect(
            more.map(\.message) == ["missingImage: 1,234,567, plural true", "unknownKey: at least 0, plural true"])
        #expect(more.map(\.isExact) == [true, false])
        #expect(999.groupedDigits == "999" && 1_000.groupedDigits == "1,000" && 1_234_567.groupedDigits == "1,234,567")
    }

    @Test func fewWarningsHaveNoSummary() {
        var log = ImportWarningLog()
        log.add(.unknownKey, at: location(4), "unknown key \"fabric\" ignored")
        let (shown, more) = log.finish { _, _, _ in "" }
        #expect(shown.map(\.message) == ["unknown key \"fabric\" ignored"])
        #expect(more.isEmpty)
    }
}
