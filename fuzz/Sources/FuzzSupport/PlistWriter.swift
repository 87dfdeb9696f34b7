import Foundation
import PropertyList

/// Writes a value back as an XML property list, canonically, so that the
/// reader target can check that whatever it read reads again to the same
/// value (a round trip through the reader's own grammar).
public enum PlistWriter {
    public static func document(_ value: PropertyListValue) -> Data {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">

            """
        write(value, to: &out)
        out += "\n</plist>\n"
        return Data(out.utf8)
    }

    /// Arrays of items written in document order; an explicit stack, as in
    /// the reader, so that 512 levels never exhaust the call stack.
    private enum Step {
        case value(PropertyListValue)
        case key(String)
        case text(String)
    }

    static func write(_ root: PropertyListValue, to out: inout String) {
        var steps: [Step] = [.value(root)]
        while let step = steps.popLast() {
            switch step {
            case .text(let text):
                out += text
            case .key(let key):
                out += "<key>\(escaped(key))</key>"
            case .value(let value):
                switch value {
                case .string(let text): out += "<string>\(escaped(text))</string>"
                case .integer(let number): out += "<integer>\(number)</integer>"
                case .real(let number): out += "<real>\(number)</real>"
                case .bool(let flag): out += flag ? "<true/>" : "<false/>"
                case .date(let date): out += "<date>\(iso8601(date))</date>"
                case .data(let data): out += "<data>\(data.base64EncodedString())</data>"
                case .array(let items):
                    out += "<array>"
                    steps.append(.text("</array>\n"))
                    for item in items.reversed() {
                        steps.append(.value(item.value))
                    }
                case .dictionary(let dictionary):
                    out += "<dict>"
                    steps.append(.text("</dict>\n"))
                    for entry in dictionary.entries.reversed() {
                        steps.append(.value(entry.item.value))
                        steps.append(.key(entry.key))
                    }
                }
            }
        }
    }

    /// Escapes markup, and the characters XML would otherwise normalise
    /// (CR, and tabs or newlines are kept as they are in element text).
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\r": out += "&#13;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` for a date the reader produced (whole
    /// seconds, years 0000 to 9999).
    static func iso8601(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))Z"
    }
}
