import Foundation

/// Attributes: types, defaults, value rules.
extension XcodeModelReader {
    /// The XML attributes of an `<attribute>` the importer reads or knows to be irrelevant to the data.
    private static let knownAttributeKeys: Set<String> = [
        "name", "optional", "transient", "attributeType", "defaultValueString", "defaultDateTimeInterval",
        "minValueString", "maxValueString", "minDateTimeInterval", "maxDateTimeInterval", "regularExpressionString",
        "usesScalarValueType", "indexed", "syncable", "valueTransformerName", "customClassName",
        "allowsExternalBinaryDataStorage", "storedInTruthFile", "spotlightIndexingEnabled", "preserveAfterDeletion",
        "versionHashModifier", "renamingIdentifier", "elementID", "derived", "derivationExpression",
        "allowsCloudEncryption", "attributeValueClassName", "composite",
    ]

    /// An `<attribute>`; nil (with a note) when it cannot be carried.
    mutating func attribute(from element: XMLTreeElement, entity: String) -> AttributeDescription? {
        guard let name = element.attributes["name"], !name.isEmpty else {
            error(element.line, entity, "an <attribute> without a name")
            return nil
        }
        let subject = "\(entity).\(name)"
        checkAttributes(of: element, subject: subject, known: Self.knownAttributeKeys)
        let transient = flag(element, "transient", subject: subject) ?? false
        let typeName = element.attributes["attributeType"] ?? "Undefined"
        let type: AttributeType
        switch typeName {
        case "Integer 16": type = .int16
        case "Integer 32": type = .int32
        case "Integer 64": type = .int64
        case "Decimal": type = .decimal
        case "Double": type = .double
        case "Float": type = .float
        case "String": type = .string
        case "Boolean": type = .bool
        case "Date": type = .date
        case "Binary", "Transformable": type = .binary
        case "UUID": type = .uuid
        case "URI": type = .uri
        case "Object ID", "ObjectID":
            type = .uri
            warn(element.line, subject, "an Object ID attribute is kept as a uri attribute holding the object's URI")
        case "Undefined":
            guard transient else {
                error(element.line, subject, "attributeType Undefined is only allowed on a transient attribute")
                return nil
            }
            type = .binary  // never stored nor sent: the type only matters to the model
        case "Composite":
            error(element.line, subject, "composite attributes are not supported")
            return nil
        default:
            error(element.line, subject, "unknown attributeType \"\(typeName)\" (known: Integer 16, Integer 32, Integer 64, "
                  + "Decimal, Double, Float, String, Boolean, Date, Binary, UUID, URI, Transformable, Undefined, Object ID)")
            return nil
        }
        var attribute = AttributeDescription(name, type, isOptional: flag(element, "optional", subject: subject) ?? false,
                                             renamingIdentifier: renamingIdentifier(of: element, subject: subject))
        attribute.isTransient = transient
        if typeName == "Transformable" {
            attribute.valueTransformerName = element.attributes["valueTransformerName"]
            attribute.customClassName = element.attributes["customClassName"] ?? element.attributes["attributeValueClassName"]
        }
        attribute.versionHashModifier = element.attributes["versionHashModifier"]
        if flag(element, "derived", subject: subject) == true {
            attribute.derivationExpression = element.attributes["derivationExpression"] ?? ""
            warn(element.line, subject, "derived attribute (\(attribute.derivationExpression ?? "")): kept as a plain stored attribute; "
                 + "GraphCore does not compute its value on save")
        }
        if flag(element, "indexed", subject: subject) == true {
            warn(element.line, subject, "indexed=YES is not kept: declare a fetch index instead")
        }
        attribute.defaultValue = defaultValue(of: element, type: type, typeName: typeName, subject: subject)
        attribute.minValue = bound(element, "min", type: type, subject: subject)
        attribute.maxValue = bound(element, "max", type: type, subject: subject)
        if let pattern = element.attributes["regularExpressionString"], !pattern.isEmpty {
            if type == .string {
                attribute.regularExpression = pattern
            } else {
                warn(element.line, subject, "a regular expression on a \(typeName) attribute means nothing; left out")
            }
        }
        do {
            _ = try AttributeValueRules(attribute, entity: entity)
        } catch {
            self.error(element.line, subject, "\(error)")
            return nil
        }
        for child in element.children {
            if child.name == "userInfo" {
                attribute.userInfo = entries(of: child, subject: subject)
            } else {
                warn(child.line, subject, "element <\(child.name)> is not known to the importer; left out")
            }
        }
        return attribute
    }

    /// The default value: `defaultValueString` read by the type (`YES`/`NO` for Booleans,
    /// numbers, text, UUIDs, URIs), `defaultDateTimeInterval` for dates (seconds since 2001-01-01 UTC).
    private mutating func defaultValue(of element: XMLTreeElement, type: AttributeType, typeName: String, subject: String) -> Value? {
        if type == .date {
            guard let text = element.attributes["defaultDateTimeInterval"] else {
                if element.attributes["defaultValueString"] != nil {
                    warn(element.line, subject, "a date default is read from defaultDateTimeInterval; defaultValueString left out")
                }
                return nil
            }
            guard let date = Self.referenceDate(text) else {
                error(element.line, subject, "defaultDateTimeInterval=\"\(text)\" is not a number of seconds within ±999999 years")
                return nil
            }
            return .date(date)
        }
        guard let text = element.attributes["defaultValueString"] else { return nil }
        if type == .binary {
            warn(element.line, subject, "a default for a \(typeName) attribute is not supported; left out")
            return nil
        }
        if let value = Self.value(text, as: type) { return value }
        if let value = Self.coercedDefault(text, as: type) {
            warn(element.line, subject, "defaultValueString=\"\(text)\" is not a \(typeName) as written; read as Core Data reads it: \(value)")
            return value
        }
        if text.trimmingCharacters(in: .whitespaces).isEmpty {
            warn(element.line, subject, "an empty defaultValueString on a \(typeName) attribute is no default; left out")
            return nil
        }
        error(element.line, subject, "defaultValueString=\"\(text)\" is not a valid \(typeName)")
        return nil
    }

    /// A default written in a spelling Xcode accepts but ``value(_:as:)`` does not, read as
    /// Core Data reads it (`docs/MODEL.md`, "Defaults"): `YES`/`NO` (`true`/`false`) on a
    /// number are 1/0; a number with a fraction on an integer attribute is cut toward zero (as
    /// `NSString.integerValue` does); on a Boolean, a number or `Y`/`N`/`T`/`F` is read as
    /// `NSString.boolValue` reads it (after spaces, a sign and leading zeros, `Y`, `y`, `T`, `t`
    /// or a digit 1-9 is true, anything else false: `0.0` is false, `1` and `2` true). Nil when
    /// nothing sensible is read (`maybe` on a Boolean stays an error).
    static func coercedDefault(_ text: String, as type: AttributeType) -> Value? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch type {
        case .bool:
            // Numbers and the one-letter spellings; a word like "maybe" stays an error.
            guard Double(trimmed) != nil || ["y", "n", "t", "f"].contains(trimmed.lowercased()) else { return nil }
            return .bool(cocoaBoolValue(trimmed))
        case .int16, .int32, .int64, .double, .float, .decimal:
            if let flag = boolean(trimmed), Int64(trimmed) == nil {
                return value(flag ? "1" : "0", as: type)
            }
            guard type == .int16 || type == .int32 || type == .int64,
                  let number = Double(trimmed), number.isFinite, abs(number) < 9.2e18 else { return nil }
            return Value.int(Int64(number.rounded(.towardZero))).converted(to: type)
        case .string, .uuid, .uri, .date, .binary:
            return nil
        }
    }

    /// `NSString.boolValue`: after leading spaces, an optional sign and leading zeros, true on
    /// `Y`, `y`, `T`, `t` or a digit 1-9 (the rest is ignored), else false.
    static func cocoaBoolValue(_ text: String) -> Bool {
        var characters = Substring(text).drop { $0 == " " || $0 == "\t" }
        if let first = characters.first, first == "+" || first == "-" { characters = characters.dropFirst() }
        characters = characters.drop { $0 == "0" }
        guard let first = characters.first else { return false }
        return "YyTt123456789".contains(first)
    }

    /// `minValueString`/`maxValueString` (numbers; lengths for strings and binary data) or
    /// `minDateTimeInterval`/`maxDateTimeInterval` for dates.
    private mutating func bound(_ element: XMLTreeElement, _ which: String, type: AttributeType, subject: String) -> Value? {
        if type == .date {
            guard let text = element.attributes["\(which)DateTimeInterval"] ?? element.attributes["\(which)ValueString"] else { return nil }
            guard let date = Self.referenceDate(text) else {
                error(element.line, subject, "\(which)DateTimeInterval=\"\(text)\" is not a number of seconds within ±999999 years")
                return nil
            }
            return .date(date)
        }
        guard let text = element.attributes["\(which)ValueString"], !text.isEmpty else { return nil }
        let lengthType: AttributeType = (type == .string || type == .binary) ? .int64 : type
        guard let value = Self.value(text, as: lengthType), lengthType != .bool, lengthType != .uuid, lengthType != .uri else {
            error(element.line, subject, "\(which)ValueString=\"\(text)\" is not a valid bound for this attribute")
            return nil
        }
        return value
    }

    /// Seconds since 2001-01-01 00:00 UTC (Core Data's reference date) as a date, rounded to
    /// the millisecond as GraphCore keeps dates; nil beyond the years ±999999 that dates can be
    /// written in (`docs/MODEL.md`).
    static func referenceDate(_ text: String) -> Date? {
        guard let seconds = Double(text.trimmingCharacters(in: .whitespaces)), seconds.isFinite,
              abs(seconds) < 31_000_000_000_000 else { return nil }
        return Date(timeIntervalSinceReferenceDate: (seconds * 1000).rounded() / 1000)
    }

    /// A value written as text in a model file, read for `type`.
    static func value(_ text: String, as type: AttributeType) -> Value? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch type {
        case .bool:
            return boolean(trimmed).map(Value.bool)
        case .int16, .int32, .int64:
            if let integer = Int64(trimmed) { return Value.int(integer).converted(to: type) }
            guard let number = Double(trimmed), let integer = Int64(exactly: number) else { return nil }
            return Value.int(integer).converted(to: type)
        case .double, .float:
            if let special = Value.parse(text: trimmed, as: type) { return special }
            guard let number = Double(trimmed) else { return nil }
            return Value.double(number).converted(to: type)
        case .decimal:
            if let integer = Int64(trimmed) { return .decimal(Decimal(integer)) }
            return Value.parse(text: trimmed, as: .decimal)
        case .string:
            return .string(text)
        case .uuid, .uri, .date, .binary:
            return Value.parse(text: trimmed, as: type)
        }
    }
}
