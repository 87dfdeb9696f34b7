/// Why a property list could not be read, and where.
///
/// The message says what was expected and what was found; the location,
/// when there is one, points at the offending element:
///
/// ```
/// SampleData.plist:27:5: expected <key> or </dict>, found <string>
/// SampleData.plist:31:9: invalid <integer> "12x"
/// Photos.plist: byte 1234: object reference 99 is out of range (12 objects)
/// Photos.plist: binary property lists are not supported yet (found
///     "bplist00" header); convert with: plutil -convert xml1 Photos.plist
/// ```
///
/// Callers that map errors to exit codes switch on ``kind``; callers that
/// show errors to people print ``description``.
public struct PropertyListError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable code.
    public enum Kind: Sendable, Hashable {
        /// The file does not exist.
        case fileNotFound
        /// The file exists but cannot be read (permissions, a directory...).
        case unreadable
        /// The file is a binary property list (`bplist00` header), given to
        /// the XML reader.
        case binaryPropertyList
        /// A binary property list whose structure is broken or hostile: a
        /// bad header, a trailer that lies, an offset or object reference
        /// out of range, a count that does not fit in the file, a cycle, an
        /// unknown marker byte, or more values than the file can honestly
        /// hold (see ``BinaryPropertyListReader``).
        case malformedBinary
        /// libxml2 refused the document: it is not well-formed XML.
        case malformedXML
        /// The document declares or uses entities: an internal DTD subset,
        /// an entity declaration, or an entity reference other than the five
        /// predefined ones and numeric character references.
        case forbiddenDeclaration
        /// Arrays and dictionaries nest deeper than
        /// ``PropertyListReader/maximumDepth``.
        case tooDeeplyNested
        /// An element (or text) where the property-list grammar wants
        /// something else: an unknown element, a `<key>` without a value, a
        /// value without a `<key>`, text between elements...
        case unexpectedElement
        /// A scalar whose text cannot be read as its type: `<integer>12x`,
        /// a date that is not `YYYY-MM-DDTHH:MM:SSZ`, invalid Base64...
        case invalidValue
        /// A `<dict>` (or JSON object) repeats a key.
        case duplicateKey
        /// JSON, JSON Lines or CSV that breaks its grammar: a missing
        /// comma or quote, a bad escape, invalid UTF-8, a NUL, a value or
        /// row larger than the readers' limits, or a truncated document.
        case malformedText
    }

    /// What went wrong.
    public var kind: Kind
    /// A sentence for people, without the location: what was expected and
    /// what was found.
    public var message: String
    /// The display name of the document.
    public var file: String
    /// Where the problem is, when it is inside the document.
    public var location: SourceLocation?

    /// Creates an error located inside a document.
    public init(_ kind: Kind, _ message: String, at location: SourceLocation) {
        self.kind = kind
        self.message = message
        self.file = location.file
        self.location = location
    }

    /// Creates an error about a whole file (missing, unreadable, binary).
    public init(_ kind: Kind, _ message: String, file: String) {
        self.kind = kind
        self.message = message
        self.file = file
        self.location = nil
    }

    /// `file:line:column: message`, `file: byte N: message` in a binary
    /// property list, or `file: message` when the error has no location.
    public var description: String {
        if let location {
            return "\(location): \(message)"
        }
        return "\(file): \(message)"
    }
}
