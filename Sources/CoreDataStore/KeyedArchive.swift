import Foundation

/// An NSKeyedArchiver archive, read without Foundation's unarchiver (which
/// Linux's Foundation cannot use on Apple's classes): a binary property list
/// whose `$objects` array holds every object once, objects referring to one
/// another by UID, and `$top` naming the root.
///
///     let archive = try KeyedArchive(data: blob, file: "cover")
///     let value = try archive.decodeRoot()     // .string("default cover"), .color(...), ...
///
/// Two ways to read it:
/// - ``decodeRoot()`` turns the root into an ``ArchivedValue`` tree, for a
///   transformable attribute's value;
/// - ``fields(of:)``, ``className(of:)`` and friends walk it object by
///   object, for Core Data's model, whose entities and relationships refer
///   to one another in cycles.
///
/// Nothing is trusted: every UID is checked against `$objects`, a cycle on
/// the current path or nesting past ``maximumDepth`` is an error, and a
/// decode stops after ``maximumValues`` values (an archive can share one
/// array from many places, a "billion laughs" of references).
public struct KeyedArchive: Sendable {
    let plist: BinaryPlistObjects
    /// Index in the property list of each `$objects` element.
    let objects: [Int]
    /// Index in `$objects` of the root.
    public let rootObject: Int

    public static let maximumDepth = 512
    public static let maximumValues = 1_000_000

    /// Checks the archive's frame: `$archiver`, `$objects`, `$top`.
    /// - Parameters:
    ///   - data: The archive's bytes (`bplist00`).
    ///   - file: The name errors give (a column, a table).
    /// - Throws: ``CoreDataError`` of kind `.malformedArchive`, located by
    ///   byte offset.
    public init(data: Data, file: String) throws(CoreDataError) {
        plist = try BinaryPlistObjects(data, file: file)
        guard let top = try plist.stringKeyedDictionary(plist.top) else {
            throw plist.malformed("the root is not a dictionary with string keys, as NSKeyedArchiver writes", at: 8)
        }
        if let archiver = top["$archiver"], let name = try plist.string(archiver), name != "NSKeyedArchiver" {
            throw CoreDataError(
                .malformedArchive, "the archiver is \"\(name)\", not NSKeyedArchiver", file: file)
        }
        guard let objectsIndex = top["$objects"], case .array(let objects) = try plist.object(objectsIndex) else {
            throw CoreDataError(.malformedArchive, "no $objects array: not an NSKeyedArchiver archive", file: file)
        }
        guard let topIndex = top["$top"], let topEntries = try plist.stringKeyedDictionary(topIndex),
            let rootReference = topEntries["root"] ?? topEntries.sorted(by: { $0.key < $1.key }).first?.value
        else {
            throw CoreDataError(.malformedArchive, "no $top dictionary naming the root", file: file)
        }
        guard case .uid(let root) = try plist.object(rootReference), root < objects.count else {
            throw CoreDataError(.malformedArchive, "$top's root is not a UID into $objects", file: file)
        }
        self.objects = objects
        rootObject = root
    }

    /// The file name errors give.
    public var file: String { plist.file }

    // MARK: - Object by object

    /// `$objects[index]`, one level deep.
    func object(_ index: Int) throws(CoreDataError) -> PlistObject {
        guard index >= 0, index < objects.count else {
            throw CoreDataError(
                .malformedArchive, "UID \(index) is out of range (\(objects.count) objects)", file: file)
        }
        return try plist.object(objects[index])
    }

    /// The keys of object `index` (an instance: a dictionary with
    /// `$class`), each with its value one level deep; `nil` when the
    /// object is not an instance.
    public func fields(of index: Int) throws(CoreDataError) -> [String: Int]? {
        guard case .dictionary(let keys, let values) = try object(index) else { return nil }
        var result: [String: Int] = [:]
        for (key, value) in zip(keys, values) {
            guard let name = try plist.string(key) else { return nil }
            result[name] = value
        }
        return result
    }

    /// The plist object under `key` of the instance `fields`, UIDs
    /// followed once.
    func value(_ key: String, in fields: [String: Int]) throws(CoreDataError) -> PlistObject? {
        guard let index = fields[key] else { return nil }
        let value = try plist.object(index)
        if case .uid(let target) = value {
            return try object(target)
        }
        return value
    }

    /// The UID under `key`, if that is what it holds and it is not `$null`.
    func reference(_ key: String, in fields: [String: Int]) throws(CoreDataError) -> Int? {
        guard let index = fields[key], case .uid(let target) = try plist.object(index) else { return nil }
        if case .string("$null") = try object(target) { return nil }
        return target
    }

    func string(_ key: String, in fields: [String: Int]) throws(CoreDataError) -> String? {
        switch try value(key, in: fields) {
        case .string(let string) where string != "$null": string
        default: nil
        }
    }

    func integer(_ key: String, in fields: [String: Int]) throws(CoreDataError) -> Int64? {
        switch try value(key, in: fields) {
        case .integer(let value): value
        case .bool(let value): value ? 1 : 0
        default: nil
        }
    }

    func bool(_ key: String, in fields: [String: Int]) throws(CoreDataError) -> Bool {
        switch try value(key, in: fields) {
        case .bool(let value): value
        case .integer(let value): value != 0
        default: false
        }
    }

    /// The class name (`$classname` of `$class`) of object `index`.
    public func className(of index: Int) throws(CoreDataError) -> String? {
        guard let fields = try fields(of: index), let classIndex = try reference("$class", in: fields),
            let classFields = try self.fields(of: classIndex)
        else { return nil }
        return try string("$classname", in: classFields)
    }

    /// The elements of a collection object (`NS.objects`), as `$objects`
    /// indexes; `nil` when it is not one.
    func elements(of index: Int) throws(CoreDataError) -> [Int]? {
        guard let fields = try fields(of: index) else { return nil }
        return try uids("NS.objects", in: fields)
    }

    /// The UIDs of the array under `key`.
    func uids(_ key: String, in fields: [String: Int]) throws(CoreDataError) -> [Int]? {
        guard let index = fields[key] else { return nil }
        let references: [Int]
        switch try plist.object(index) {
        case .array(let items), .set(let items): references = items
        default: return nil
        }
        var result: [Int] = []
        result.reserveCapacity(references.count)
        for reference in references {
            guard case .uid(let target) = try plist.object(reference) else {
                throw CoreDataError(.malformedArchive, "\(key) holds something other than a UID", file: file)
            }
            result.append(target)
        }
        return result
    }

    /// The key–value pairs of a dictionary object, as `$objects` indexes:
    /// `NSDictionary` (`NS.keys`, `NS.objects`) or Core Data's
    /// `NSKnownKeysDictionary` (`searchMapping.keys`, `values`).
    func entries(of index: Int) throws(CoreDataError) -> [(key: Int, value: Int)]? {
        guard let fields = try fields(of: index) else { return nil }
        if let keys = try uids("NS.keys", in: fields), let values = try uids("NS.objects", in: fields) {
            guard keys.count == values.count else {
                throw CoreDataError(.malformedArchive, "a dictionary with \(keys.count) keys and \(values.count) values", file: file)
            }
            return zip(keys, values).map { ($0, $1) }
        }
        if let mapping = try reference("searchMapping", in: fields), let mappingFields = try self.fields(of: mapping),
            let keyList = try reference("keys", in: mappingFields), let keys = try elements(of: keyList),
            let valueList = try reference("values", in: fields), let values = try elements(of: valueList)
        {
            guard keys.count <= values.count else {
                throw CoreDataError(.malformedArchive, "a known-keys dictionary with more keys than values", file: file)
            }
            return zip(keys, values).map { ($0, $1) }
        }
        return nil
    }

    /// The string object at `index` (a plain string or an `NSString`
    /// instance), or `nil`.
    func stringObject(_ index: Int) throws(CoreDataError) -> String? {
        switch try object(index) {
        case .string(let string): return string == "$null" ? nil : string
        case .dictionary:
            guard let fields = try fields(of: index) else { return nil }
            return try string("NS.string", in: fields)
        default: return nil
        }
    }

    // MARK: - Whole values

    /// The root decoded as a value tree.
    /// - Throws: ``CoreDataError`` (`.malformedArchive`) for a cycle, nesting
    ///   past ``maximumDepth``, more than ``maximumValues`` values, or an
    ///   object the property list cannot read.
    public func decodeRoot() throws(CoreDataError) -> ArchivedValue {
        var budget = Self.maximumValues
        var path = Set<Int>()
        return try decode(rootObject, path: &path, budget: &budget)
    }

    private func decode(_ index: Int, path: inout Set<Int>, budget: inout Int) throws(CoreDataError) -> ArchivedValue {
        budget -= 1
        guard budget >= 0 else {
            throw CoreDataError(
                .malformedArchive, "the archive expands to more than \(Self.maximumValues) values", file: file)
        }
        guard path.count < Self.maximumDepth else {
            throw CoreDataError(
                .malformedArchive, "objects nest deeper than \(Self.maximumDepth) levels", file: file)
        }
        guard path.insert(index).inserted else {
            throw CoreDataError(.malformedArchive, "object \(index) contains itself", file: file)
        }
        defer { path.remove(index) }
        switch try object(index) {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .integer(let value): return .integer(value)
        case .real(let value): return .real(value)
        case .date(let value): return .date(value)
        case .data(let value): return .data(value)
        case .string(let value): return value == "$null" ? .null : .string(value)
        case .uid(let target): return try decode(target, path: &path, budget: &budget)
        case .array(let items), .set(let items):
            // A bare plist array inside $objects: not what NSKeyedArchiver
            // writes, but plain enough to read.
            var values: [ArchivedValue] = []
            for item in items {
                values.append(try decodePlistReference(item, path: &path, budget: &budget))
            }
            return .array(values)
        case .dictionary:
            return try decodeInstance(index, path: &path, budget: &budget)
        }
    }

    /// An element of a bare plist container: a UID or an inline value.
    private func decodePlistReference(_ reference: Int, path: inout Set<Int>, budget: inout Int) throws(CoreDataError)
        -> ArchivedValue
    {
        switch try plist.object(reference) {
        case .uid(let target): return try decode(target, path: &path, budget: &budget)
        case .string(let value): return .string(value)
        case .integer(let value): return .integer(value)
        case .real(let value): return .real(value)
        case .bool(let value): return .bool(value)
        case .data(let value): return .data(value)
        case .date(let value): return .date(value)
        default: return .null
        }
    }

    private func decodeInstance(_ index: Int, path: inout Set<Int>, budget: inout Int) throws(CoreDataError)
        -> ArchivedValue
    {
        guard let fields = try fields(of: index) else {
            throw CoreDataError(.malformedArchive, "object \(index) is a dictionary without string keys", file: file)
        }
        guard let className = try className(of: index) else {
            throw CoreDataError(.malformedArchive, "object \(index) has no $class", file: file)
        }
        func child(_ key: String, _ path: inout Set<Int>, _ budget: inout Int) throws(CoreDataError) -> ArchivedValue? {
            guard let reference = fields[key] else { return nil }
            return try decodePlistReference(reference, path: &path, budget: &budget)
        }
        switch className {
        case "NSString", "NSMutableString":
            if let string = try string("NS.string", in: fields) { return .string(string) }
            if case .data(let bytes) = try value("NS.bytes", in: fields) {
                return .string(String(decoding: bytes, as: UTF8.self))
            }
            return .string("")
        case "NSNumber", "NSDecimalNumber":
            if let value = try child("NS.intval", &path, &budget) { return value }
            if let value = try child("NS.dblval", &path, &budget) { return value }
            return .object(className: className)
        case "NSData", "NSMutableData":
            if case .data(let bytes) = try value("NS.data", in: fields) { return .data(bytes) }
            return .data(Data())
        case "NSDate":
            switch try value("NS.time", in: fields) {
            case .real(let seconds): return .date(seconds)
            case .integer(let seconds): return .date(Double(seconds))
            default: return .object(className: className)
            }
        case "NSUUID":
            if case .data(let bytes) = try value("NS.uuidbytes", in: fields), bytes.count == 16 {
                return .uuid(UUID(uuid: UUIDBytes.tuple(bytes)))
            }
            return .object(className: className)
        case "NSURL":
            var relative = ""
            if let reference = try reference("NS.relative", in: fields), let text = try stringObject(reference) {
                relative = text
            }
            var base: String?
            if let baseIndex = try reference("NS.base", in: fields) {
                if case .url(let text) = try decode(baseIndex, path: &path, budget: &budget) { base = text }
            }
            if let base, let url = URL(string: relative, relativeTo: URL(string: base)) {
                return .url(url.absoluteString)
            }
            return .url(relative)
        case "UIColor", "NSColor", "UIDeviceRGBColor", "UICachedDeviceRGBColor", "UIDeviceWhiteColor",
            "UICachedDeviceWhiteColor":
            if let color = try color(fields) { return color }
            return .object(className: className)
        default:
            if let items = try uids("NS.objects", in: fields) {
                if let keys = try uids("NS.keys", in: fields) {
                    guard keys.count == items.count else {
                        throw CoreDataError(
                            .malformedArchive, "a dictionary with \(keys.count) keys and \(items.count) values",
                            file: file)
                    }
                    var entries: [ArchivedValue.Entry] = []
                    for (key, value) in zip(keys, items) {
                        entries.append(
                            ArchivedValue.Entry(
                                key: try decode(key, path: &path, budget: &budget),
                                value: try decode(value, path: &path, budget: &budget)))
                    }
                    return .dictionary(entries)
                }
                var values: [ArchivedValue] = []
                values.reserveCapacity(items.count)
                for item in items {
                    values.append(try decode(item, path: &path, budget: &budget))
                }
                return className.hasSuffix("Set") && !className.hasSuffix("OrderedSet") ? .set(values) : .array(values)
            }
            return .object(className: className)
        }
    }

    /// `UIColor` (`UIRed`…`UIAlpha`, or `UIWhite`) or `NSColor` (`NSRGB` or
    /// `NSWhite`, ASCII numbers separated by spaces, optionally NUL-ended).
    private func color(_ fields: [String: Int]) throws(CoreDataError) -> ArchivedValue? {
        func number(_ key: String) throws(CoreDataError) -> Double? {
            switch try value(key, in: fields) {
            case .real(let value): value
            case .integer(let value): Double(value)
            default: nil
            }
        }
        if let red = try number("UIRed"), let green = try number("UIGreen"), let blue = try number("UIBlue") {
            return .color(red: red, green: green, blue: blue, alpha: try number("UIAlpha") ?? 1)
        }
        if let white = try number("UIWhite") {
            return .color(red: white, green: white, blue: white, alpha: try number("UIAlpha") ?? 1)
        }
        for key in ["NSRGB", "NSWhite"] {
            guard case .data(let bytes) = try value(key, in: fields) else { continue }
            let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            let numbers = text.split(separator: " ").compactMap { Double($0) }
            if key == "NSRGB", numbers.count >= 3 {
                return .color(red: numbers[0], green: numbers[1], blue: numbers[2], alpha: numbers.count > 3 ? numbers[3] : 1)
            }
            if key == "NSWhite", let white = numbers.first {
                return .color(red: white, green: white, blue: white, alpha: numbers.count > 1 ? numbers[1] : 1)
            }
        }
        return nil
    }
}

/// 16 bytes as `uuid_t`.
enum UUIDBytes {
    static func tuple(_ data: Data) -> uuid_t {
        let b = [UInt8](data)
        return (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
    }
}
