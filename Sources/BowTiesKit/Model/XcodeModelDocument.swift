import Foundation

/// The declaration as Xcode's model file: the `contents` XML inside a
/// `.xcdatamodel` folder, so that an app on Apple's systems can be built
/// on the same model (`bowties model --format xcdatamodel`).
///
/// ```xml
/// <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" …>
///     <entity name="BowTie" representedClassName="BowTie" syncable="YES" codeGenerationType="class">
///         <attribute name="rating" attributeType="Double" minValueString="0" maxValueString="5" …/>
/// ```
///
/// Attributes and relationships are written by name, as Xcode sorts them.
/// Rules Core Data's model cannot say are left out: a string's pattern
/// and "not only spaces", case-insensitive uniqueness, the derivations of
/// `timesWorn` and `lastWorn`, the import keys.
public enum XcodeModelDocument {
    /// The `contents` file for `entities`.
    public static func contents(of entities: [EntityDescription]) -> String {
        var xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" \
            minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">

            """
        for entity in entities.sorted(by: { $0.name < $1.name }) {
            xml += "    <entity name=\(quoted(entity.name)) representedClassName=\(quoted(entity.name))"
            xml += " syncable=\"YES\" codeGenerationType=\"class\">\n"
            for attribute in entity.attributes.sorted(by: { $0.name < $1.name }) {
                xml += "        <attribute" + attributeFields(attribute).map { " \($0.0)=\(quoted($0.1))" }.joined()
                xml += "/>\n"
            }
            for relationship in entity.relationships.sorted(by: { $0.name < $1.name }) {
                var fields: [(String, String)] = [("name", relationship.name)]
                if relationship.minCount == 0 { fields.append(("optional", "YES")) }
                if relationship.isToMany {
                    fields.append(("toMany", "YES"))
                    if relationship.minCount > 0 { fields.append(("minCount", String(relationship.minCount))) }
                    if let maxCount = relationship.maxCount { fields.append(("maxCount", String(maxCount))) }
                } else {
                    fields.append(("maxCount", "1"))
                }
                fields.append(("deletionRule", deletionRule(relationship.deleteRule)))
                fields += [
                    ("destinationEntity", relationship.destination), ("inverseName", relationship.inverse),
                    ("inverseEntity", relationship.destination),
                ]
                xml += "        <relationship" + fields.map { " \($0.0)=\(quoted($0.1))" }.joined() + "/>\n"
            }
            let unique = entity.attributes.filter(\.isUnique).map(\.name)
            if !unique.isEmpty {
                xml += "        <uniquenessConstraints>\n"
                for name in unique {
                    xml += "            <uniquenessConstraint>\n"
                    xml += "                <constraint value=\(quoted(name))/>\n"
                    xml += "            </uniquenessConstraint>\n"
                }
                xml += "        </uniquenessConstraints>\n"
            }
            xml += "    </entity>\n"
        }
        xml += "</model>\n"
        return xml
    }

    /// The `<attribute>` fields, in the order Xcode writes them.
    static func attributeFields(_ attribute: AttributeDescription) -> [(String, String)] {
        var fields: [(String, String)] = [("name", attribute.name)]
        if attribute.isOptional { fields.append(("optional", "YES")) }
        fields.append(("attributeType", attributeType(attribute.type)))
        // Strings: the bounds are lengths; numbers: values.
        let minimum = attribute.minLength.map(String.init) ?? attribute.minValue.map(number)
        let maximum = attribute.maxLength.map(String.init) ?? attribute.maxValue.map(number)
        if let minimum { fields.append(("minValueString", minimum)) }
        if let maximum { fields.append(("maxValueString", maximum)) }
        if let value = attribute.defaultValue, let text = defaultText(value) {
            fields.append(("defaultValueString", text))
        }
        if attribute.allowsExternalStorage { fields.append(("allowsExternalBinaryDataStorage", "YES")) }
        if let transformer = attribute.valueTransformerName {
            fields.append(("valueTransformerName", transformer))
            // The class the transformer reads and writes on Apple's
            // systems (NSColor on macOS).
            fields.append(("customClassName", "UIColor"))
        }
        switch attribute.type {
        case .boolean, .double, .integer32: fields.append(("usesScalarValueType", "YES"))
        case .date, .uuid: fields.append(("usesScalarValueType", "NO"))
        default: break
        }
        return fields
    }

    /// Xcode's `attributeType` names.
    static func attributeType(_ type: AttributeType) -> String {
        // The file says "Binary" where the model editor shows "Binary Data".
        type == .binaryData ? "Binary" : type.displayName
    }

    static func deletionRule(_ rule: RelationshipDescription.DeleteRule) -> String {
        switch rule {
        case .nullify: "Nullify"
        case .cascade: "Cascade"
        case .deny: "Deny"
        }
    }

    /// A default as Xcode writes it: `YES`/`NO`, numbers plain.
    static func defaultText(_ value: AttributeValue) -> String? {
        switch value {
        case .bool(let flag): flag ? "YES" : "NO"
        case .double(let value): number(value)
        case .integer(let number): String(number)
        case .string(let text): text
        case .uuid(let id): id.uuidString
        case .uri(let text): text
        case .date, .blob, .color: nil
        }
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// `"text"`, escaped for an XML attribute.
    static func quoted(_ text: String) -> String {
        var escaped = "\""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "\n": escaped += "&#10;"
            default: escaped.append(character)
            }
        }
        return escaped + "\""
    }
}
