// foundation-import FILE STORE
//
// What a Swift programmer writes first: read the whole property list with
// PropertyListSerialization, then insert every record with one prepared
// statement in one GRDB transaction. The table and its encodings are those
// of bench/reference/import.c (lastWorn as REAL seconds since 1970,
// tintColor as the 36-byte "BTC1" blob, imageName as text).
import Foundation
import GRDB

let schema = """
    CREATE TABLE bowtie (\
     id TEXT NOT NULL PRIMARY KEY, name TEXT NOT NULL, searchKey TEXT UNIQUE,\
     rating REAL NOT NULL DEFAULT 0, timesWorn INTEGER NOT NULL DEFAULT 0,\
     lastWorn REAL, isFavorite BOOLEAN NOT NULL DEFAULT 0, url TEXT,\
     tintColor BLOB, imageName TEXT)
    """
let insertSQL = """
    INSERT INTO bowtie (id, name, searchKey, rating, timesWorn, lastWorn,\
     isFavorite, url, tintColor, imageName) VALUES (?,?,?,?,?,?,?,?,?,?)
    """

struct UsageError: Error, CustomStringConvertible {
    var description: String
}

/// A number as Foundation returns it: Double, Int or NSNumber.
func number(_ value: Any?) -> Double? {
    switch value {
    case let double as Double: double
    case let int as Int: Double(int)
    case let number as NSNumber: number.doubleValue
    default: nil
    }
}

/// The 36 bytes ColorAttributeTransformer stores: "BTC1", then red, green,
/// blue and alpha as big-endian doubles.
func colorBlob(_ value: Any?) -> Data? {
    guard let components = value as? [String: Any] else { return nil }
    var bytes = Array("BTC1".utf8)
    bytes.reserveCapacity(36)
    let rgb = ["red", "green", "blue"].map { (number(components[$0]) ?? 0) / 255 }
    for component in rgb + [1.0] {
        withUnsafeBytes(of: component.bitPattern.bigEndian) { bytes.append(contentsOf: $0) }
    }
    return Data(bytes)
}

func run(_ arguments: [String]) throws -> Int {
    guard arguments.count == 3 else { throw UsageError(description: "usage: foundation-import FILE STORE") }
    let data = try Data(contentsOf: URL(fileURLWithPath: arguments[1]))
    let root = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    guard let ties = root as? [[String: Any]] else {
        throw UsageError(description: "\(arguments[1]): the root is not an array of dictionaries")
    }
    let database = try DatabaseQueue(path: arguments[2])
    try database.write { db in
        try db.execute(sql: schema)
        let statement = try db.makeStatement(sql: insertSQL)
        for tie in ties {
            let lastWorn = (tie["lastWorn"] as? Date)?.timeIntervalSince1970
            let values: [(any DatabaseValueConvertible)?] = [
                tie["id"] as? String,
                tie["name"] as? String,
                tie["searchKey"] as? String,
                number(tie["rating"]) ?? 0,
                Int64(number(tie["timesWorn"]) ?? 0),
                lastWorn,
                tie["isFavorite"] as? Bool ?? false,
                tie["url"] as? String,
                colorBlob(tie["tintColor"]),
                tie["imageName"] as? String,
            ]
            try statement.execute(arguments: StatementArguments(values))
        }
    }
    return ties.count
}

do {
    let count = try run(CommandLine.arguments)
    print("imported \(count) records")
} catch let error as UsageError {
    FileHandle.standardError.write(Data("foundation-import: \(error)\n".utf8))
    exit(64)
} catch {
    FileHandle.standardError.write(Data("foundation-import: \(error)\n".utf8))
    exit(1)
}
