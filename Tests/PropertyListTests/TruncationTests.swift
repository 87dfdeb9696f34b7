import Foundation
import PropertyList
import Testing

/// Files cut short say so, instead of libxml2's "Extra content at the end
/// of the document".
@Suite("Truncated and empty documents")
struct TruncationTests {
    static let whole = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <array>
        \t<dict>
        \t\t<key>name</key>
        \t\t<string>Half a tie</string>
        \t</dict>
        </array>
        </plist>

        """

    private func error(reading text: String) -> PropertyListError? {
        do {
            _ = try PropertyListReader.read(data: Data(text.utf8), displayName: "cut.plist")
            return nil
        } catch let error as PropertyListError {
            return error
        } catch {
            return nil
        }
    }

    @Test(arguments: [40, 70, 90, 120, 140, 150])
    func aFileCutShortSaysItEndsEarly(length: Int) throws {
        let cut = String(Self.whole.utf8.prefix(length)) ?? ""
        let error = try #require(self.error(reading: cut))
        #expect(error.kind == .malformedXML)
        #expect(error.message.contains("the file ends before the document does"), "\(error)")
        #expect(error.message.contains("truncated?"))
    }

    /// Not cut short: the document has ended and something follows it.
    /// libxml2 says "Extra content at the end of the document" both for
    /// this and for a file cut short; its pull loop says nothing at all
    /// of a NUL byte there (it takes it for the end of the input).
    @Test(arguments: [
        ("\0\0", "a NUL byte", 10, 1),
        ("\n\n  x", "'x'", 12, 3),
        ("<plist/>", "a second element", 10, 1),
        ("<!-- fine -->\u{1}", "the control byte 0x01", 10, 14),
    ])
    func contentAfterTheEndSaysSo(tail: String, what: String, line: Int, column: Int) throws {
        let error = try #require(self.error(reading: Self.whole + tail))
        #expect(error.kind == .malformedXML)
        #expect(
            error.message
                == "malformed XML: \(what) after the end of the document (only comments and white space may follow it)",
            "\(error)")
        #expect(error.location?.line == line && error.location?.column == column, "\(error)")
    }

    @Test func anEmptyFileSaysSo() throws {
        let empty = try #require(error(reading: ""))
        #expect(empty.kind == .malformedXML && empty.message == "malformed XML: the file is empty")
        let blank = try #require(error(reading: " \n\t\n"))
        #expect(blank.message == "malformed XML: the file holds only whitespace")
    }

    @Test func theWholeFileReads() throws {
        #expect(error(reading: Self.whole) == nil)
    }
}
