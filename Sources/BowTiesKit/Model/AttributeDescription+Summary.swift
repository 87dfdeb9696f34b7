/// How the model reads to a person, as Xcode's model editor shows it:
/// for `bowties model` and anything else that describes the declaration.
extension AttributeType {
    /// Core Data's name for the type (`Integer 32`, `Binary Data`).
    public var displayName: String {
        switch self {
        case .string: "String"
        case .boolean: "Boolean"
        case .date: "Date"
        case .double: "Double"
        case .integer32: "Integer 32"
        case .uuid: "UUID"
        case .uri: "URI"
        case .binaryData: "Binary Data"
        case .transformable: "Transformable"
        }
    }
}

extension AttributeDescription {
    /// The attribute's rules in a few words each, in the order the model
    /// editor lists them: `required`, `0...5`, `length 1...64`, `unique`,
    /// `default 0`, `allows external storage`, `transformer X`,
    /// `imported from "imageName"`, `pattern P (what it refuses)`,
    /// `a plain word in queries`.
    public var ruleSummary: [String] {
        var rules: [String] = [isOptional ? "optional" : "required"]
        switch (minValue, maxValue) {
        case let (low?, high?): rules.append("\(AttributeValue.format(low))...\(AttributeValue.format(high))")
        case let (low?, nil): rules.append("at least \(AttributeValue.format(low))")
        case let (nil, high?): rules.append("at most \(AttributeValue.format(high))")
        case (nil, nil): break
        }
        if type == .integer32 { rules.append("fits Int32") }
        switch (minLength, maxLength) {
        case let (low?, high?): rules.append("length \(low)...\(high)")
        case let (low?, nil): rules.append("length at least \(low)")
        case let (nil, high?): rules.append("length at most \(high)")
        case (nil, nil): break
        }
        if isUnique { rules.append("unique") }
        if let defaultValue { rules.append("default \(defaultValue.displayText)") }
        if allowsExternalStorage { rules.append("allows external storage") }
        if let valueTransformerName { rules.append("transformer \(valueTransformerName)") }
        if importKey != name { rules.append("imported from \"\(importKey)\"") }
        if let pattern { rules.append("pattern \(pattern)" + (patternMeaning.map { " (\($0))" } ?? "")) }
        if requiresNonSpace { rules.append("not only spaces") }
        if isQueryWord { rules.append("a plain word in queries") }
        if isCaseInsensitive { rules.append("ignores case") }
        if isIndexed { rules.append("indexed") }
        if isPrimaryKey { rules.append("primary key") }
        switch derivation {
        case .count(let relationship)?: rules.append("baseline + count of \(relationship)")
        case .latest(let relationship, let attribute)?: rules.append("latest of baseline and \(relationship).\(attribute)")
        case nil: break
        }
        return rules
    }
}

extension RelationshipDescription {
    /// The relationship's rules in a few words: `optional`, `at least 1`,
    /// `imported from "tags"`.
    public var ruleSummary: [String] {
        var rules: [String] = []
        switch (minCount, maxCount) {
        case (0, nil), (0, 1?): rules.append("optional")
        case (1, 1?): rules.append("required")
        case (let low, nil): rules.append("at least \(low)")
        case (let low, let high?): rules.append("\(low)...\(high)")
        }
        if let importKey { rules.append("imported from \"\(importKey)\"") }
        return rules
    }
}
