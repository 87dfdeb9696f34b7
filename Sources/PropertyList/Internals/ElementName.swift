/// The elements of Apple's property-list DTD, recognised from libxml2's
/// NUL-terminated name bytes without making a `String` for every node.
enum ElementName: Equatable {
    case plist
    case array
    case dict
    case key
    case string
    case data
    case date
    case integer
    case real
    case `true`
    case `false`
    /// Anything else, including names with a namespace prefix.
    case other

    /// Recognises `name`, a NUL-terminated UTF-8 element name.
    ///
    /// A switch on the first byte, then one comparison against a static
    /// string: the reader calls this for every element of the document.
    init(cString name: UnsafePointer<UInt8>) {
        switch name[0] {
        case UInt8(ascii: "a"):
            self = Self.matches(name, "array") ? .array : .other
        case UInt8(ascii: "d"):
            if Self.matches(name, "dict") {
                self = .dict
            } else if Self.matches(name, "data") {
                self = .data
            } else if Self.matches(name, "date") {
                self = .date
            } else {
                self = .other
            }
        case UInt8(ascii: "f"):
            self = Self.matches(name, "false") ? .false : .other
        case UInt8(ascii: "i"):
            self = Self.matches(name, "integer") ? .integer : .other
        case UInt8(ascii: "k"):
            self = Self.matches(name, "key") ? .key : .other
        case UInt8(ascii: "p"):
            self = Self.matches(name, "plist") ? .plist : .other
        case UInt8(ascii: "r"):
            self = Self.matches(name, "real") ? .real : .other
        case UInt8(ascii: "s"):
            self = Self.matches(name, "string") ? .string : .other
        case UInt8(ascii: "t"):
            self = Self.matches(name, "true") ? .true : .other
        default:
            self = .other
        }
    }

    /// The name as written in the document, for messages (`nil` for
    /// ``other``, whose name only the XML reader knows).
    var name: String? {
        switch self {
        case .plist: "plist"
        case .array: "array"
        case .dict: "dict"
        case .key: "key"
        case .string: "string"
        case .data: "data"
        case .date: "date"
        case .integer: "integer"
        case .real: "real"
        case .true: "true"
        case .false: "false"
        case .other: nil
        }
    }

    /// The name's length in bytes (0 for ``other``), for column counting
    /// without making a `String`.
    var byteCount: Int {
        switch self {
        case .key: 3
        case .dict, .data, .date, .real, .true: 4
        case .plist, .array, .false: 5
        case .string: 6
        case .integer: 7
        case .other: 0
        }
    }

    /// Whether the element is a property-list object (everything but
    /// `<plist>`, `<key>` and unknown elements).
    var isObject: Bool {
        switch self {
        case .plist, .key, .other: false
        default: true
        }
    }

    /// Compares `name` with `expected` byte by byte, NUL included. Stops
    /// at the first difference, so it never reads past `name`'s NUL.
    private static func matches(_ name: UnsafePointer<UInt8>, _ expected: StaticString) -> Bool {
        let count = expected.utf8CodeUnitCount
        let bytes = expected.utf8Start
        for index in 0..<count where name[index] != bytes[index] {
            return false
        }
        return name[count] == 0
    }
}
