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
