import Foundation

/// A place in a property-list document: file name, 1-based line and column
/// for XML, or a byte offset for a binary property list.
///
/// Its `description` is the familiar `file:line:column` form that editors and
/// terminals turn into links, e.g. `SampleData.plist:27:5`, or
/// `Photos.plist: byte 1234` for a binary document.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The file's display name (usually its last path component, or the path
    /// as the user typed it).
    public var file: String {
        get { fileName.name }
        set { fileName = FileName(newValue) }
    }
    /// The file's display name as a number: a location is copied with
    /// every value an import reads, and a `String` longer than 15 bytes
    /// would cost a reference count on each copy.
    public var fileName: FileName
    /// 1-based line number.
    public var line: Int
    /// 1-based column number, counted in characters (a tab counts one).
    ///
    /// For values and keys it is the column of the start tag's `<`: exact
    /// whenever the element starts a line, as in every pretty-printed
    /// property list, and an estimate after entity references earlier on
    /// the same line. For malformed XML it is where libxml2 noticed the
    /// problem, usually just after it.
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.init(fileName: FileName(file), line: line, column: column)
    }

    /// A location in a file whose name a reader has already made a
    /// ``FileName`` of: no lookup, for readers that make one per value.
    public init(fileName: FileName, line: Int, column: Int) {
        self.fileName = fileName
        self.line = line
        self.column = column
    }

    /// A place in a binary property list: `offset` bytes from the start of
    /// the file.
    ///
    /// Stored as line 0 (which no XML location has) with the offset in
    /// ``column``, so that XML locations stay three words and every
    /// existing reader of `line` and `column` keeps working.
    public init(file: String, byteOffset offset: Int) {
        self.init(file: file, line: 0, column: offset)
    }

    public init(fileName: FileName, byteOffset offset: Int) {
        self.init(fileName: fileName, line: 0, column: offset)
    }

    /// The 0-based byte offset, for a location in a binary property list;
    /// `nil` for a line and column.
    public var byteOffset: Int? { line == 0 ? column : nil }

    public var description: String {
        if let objectNumber {
            return "\(file) p\(objectNumber)"
        }
        if let byteOffset {
            return "\(file): byte \(byteOffset)"
        }
        return "\(file):\(line):\(column)"
    }
}

/// One object of a property list, typed as the XML element that held it.
///
/// Arrays and dictionaries hold ``PropertyListItem``s, so every nested value
/// keeps the location it was read from.
public enum PropertyListValue: Sendable, Equatable {
    case string(String)
    /// `<integer>`: optional sign, base 10 or `0x` hexadecimal.
    case integer(Int64)
    /// `<real>`: decimal with optional exponent, or `nan`, `inf`, `-inf`.
    case real(Double)
    /// `<true/>` or `<false/>`.
    case bool(Bool)
    /// `<date>`: `YYYY-MM-DDTHH:MM:SSZ`, UTC.
    case date(Date)
    /// `<data>`: Base64, whitespace and line breaks allowed.
    case data(Data)
    case array([PropertyListItem])
    case dictionary(PropertyListDictionary)

    /// The XML element name for this kind of value, in angle brackets, as
    /// error messages show it: `<string>`, `<real>`, `<dict>`, `<true/>`...
    public var elementName: String {
        switch self {
        case .string: "<string>"
        case .integer: "<integer>"
        case .real: "<real>"
        case .bool(let value): value ? "<true/>" : "<false/>"
        case .date: "<date>"
        case .data: "<data>"
        case .array: "<array>"
        case .dictionary: "<dict>"
        }
    }
}

/// A value together with the location of the element it was read from.
public struct PropertyListItem: Sendable, Equatable {
    public var value: PropertyListValue
    public var location: SourceLocation

    public init(_ value: PropertyListValue, at location: SourceLocation) {
        self.value = value
        self.location = location
    }
}

/// The contents of a `<dict>`: keys in document order, each with its value.
///
/// Keys are unique: the reader refuses a `<dict>` that repeats a key.
public struct PropertyListDictionary: Sendable, Equatable {
    /// One `<key>` and the object that follows it.
    public struct Entry: Sendable, Equatable {
        public var key: String
        /// Where the `<key>` element is.
        public var keyLocation: SourceLocation
        public var item: PropertyListItem

        public init(key: String, keyLocation: SourceLocation, item: PropertyListItem) {
            self.key = key
            self.keyLocation = keyLocation
            self.item = item
        }
    }

    /// The entries in document order.
    public var entries: [Entry]

    public init(entries: [Entry] = []) {
        self.entries = entries
    }

    /// The item stored under `key`, if any (a linear scan: plist records
    /// have a handful of keys, where hashing costs more than it saves).
    public subscript(key: String) -> PropertyListItem? {
        entries.first(where: { $0.key == key })?.item
    }

    public var keys: [String] { entries.map(\.key) }
    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }
}
