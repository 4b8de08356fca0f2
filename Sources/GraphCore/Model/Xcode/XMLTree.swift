import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An element of a small XML document, with the line it starts on: what the Xcode model
/// importer reads from a `contents` file.
struct XMLTreeElement {
    var name: String
    var attributes: [String: String]
    var children: [XMLTreeElement]
    /// The 1-based line of the element's start tag.
    var line: Int
    /// The character data directly inside the element (an `xcmapping.xml` attribute's value).
    var text = ""

    /// The children with this element name.
    func children(named name: String) -> [XMLTreeElement] { children.filter { $0.name == name } }
}

/// Why an XML document could not be read.
struct XMLTreeError: Error {
    var line: Int
    var column: Int
    var reason: String
}

/// Reads an XML document into ``XMLTreeElement``s with Foundation's `XMLParser` (libxml2 on
/// Linux). External entities are never loaded; the nesting depth is limited.
enum XMLTree {
    /// Deeper than this, a model file is not one Xcode wrote.
    static let maximumDepth = 64

    /// The root element of `data`.
    static func parse(_ data: Data) throws(XMLTreeError) -> XMLTreeElement {
        // Foundation's XMLParser traps on names that are not UTF-8 (it reads libxml2's bytes
        // as UTF-8 without checking) and crashes on a processing instruction without data:
        // only UTF-8 documents without processing instructions or document type declarations
        // reach it. Xcode writes UTF-8 and neither of the others.
        try checkSupported(data)
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        let builder = Builder(maximumDepth: maximumDepth)
        parser.delegate = builder
        let succeeded = parser.parse()
        if let failure = builder.failure { throw failure }
        guard succeeded, let root = builder.root else {
            let reason = parser.parserError.map { Self.describe($0) } ?? "not a well-formed XML document"
            throw XMLTreeError(line: max(parser.lineNumber, 1), column: max(parser.columnNumber, 0), reason: reason)
        }
        return root
    }

    /// Refuses a document that is not valid UTF-8, declares another encoding, or holds a
    /// processing instruction (other than the XML declaration) or a document type declaration.
    static func checkSupported(_ data: Data) throws(XMLTreeError) {
        var iterator = data.makeIterator()
        var decoder = UTF8()
        var line = 1
        var column = 0
        var prefix = ""
        var count = 0
        var previous: (Unicode.Scalar, Unicode.Scalar) = (" ", " ")
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                count += 1
                if previous.1 == "<" && scalar == "?" && !(count == 2 || (count == 3 && previous.0 == "\u{FEFF}")) {
                    throw XMLTreeError(line: line, column: column, reason: "a processing instruction '<?'; a model file has none but the XML declaration")
                }
                if previous.0 == "<" && previous.1 == "!" && scalar.properties.isAlphabetic {
                    throw XMLTreeError(line: line, column: column - 1, reason: "a document type declaration '<!\(scalar)…'; a model file has none")
                }
                previous = (previous.1, scalar)
                if scalar == "\n" { line += 1; column = 0 } else { column += 1 }
                if prefix.unicodeScalars.count < 256 { prefix.unicodeScalars.append(scalar) }
            case .emptyInput:
                break decoding
            case .error:
                throw XMLTreeError(line: line, column: column + 1, reason: "the file is not UTF-8 text (Xcode writes model files in UTF-8)")
            }
        }
        let declaration = prefix.hasPrefix("\u{FEFF}") ? prefix.dropFirst() : Substring(prefix)
        if declaration.hasPrefix("<?") && !isXMLDeclaration(declaration) {
            // libxml2 takes `<?` at the start for the XML declaration only when `xml` and a
            // blank follow; anything else there is a processing instruction.
            throw XMLTreeError(line: 1, column: 1, reason: "a processing instruction '<?' that is not the XML declaration '<?xml '; a model file has none but the XML declaration")
        }
        guard declaration.hasPrefix("<?xml"),
              let end = prefix.range(of: "?>"), let key = prefix.range(of: "encoding", range: prefix.startIndex..<end.lowerBound)
        else { return }
        let rest = prefix[key.upperBound..<end.lowerBound].drop { $0 == " " || $0 == "=" || $0 == "\t" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return }
        let name = rest.dropFirst().prefix { $0 != quote }
        guard ["utf-8", "utf8"].contains(name.lowercased()) else {
            throw XMLTreeError(line: 1, column: 1, reason: "the file declares encoding \"\(name)\"; the importer reads UTF-8 only, as Xcode writes")
        }
    }

    /// Whether `text` starts with the XML declaration: `<?xml` and a blank, as libxml2 reads it.
    private static func isXMLDeclaration(_ text: Substring) -> Bool {
        let scalars = Array(text.unicodeScalars.prefix(6))
        return scalars.count == 6 && String(String.UnicodeScalarView(scalars[..<5])) == "<?xml"
            && [" ", "\t", "\r", "\n"].contains(scalars[5])
    }

    private static func describe(_ error: Error) -> String {
        let nsError = error as NSError
        if let message = nsError.userInfo[NSLocalizedDescriptionKey] as? String, !message.isEmpty {
            return message.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // The codes are libxml2's (XMLParser's error codes share its numbering).
        let meanings = [4: "the document is empty", 5: "the document ends before its elements are closed",
                        76: "an end tag does not match its start tag", 77: "a tag is not finished"]
        return "XMLParser error \(nsError.code)" + (meanings[nsError.code].map { ", \($0)" } ?? "")
    }

    /// Builds the tree from the parser's events.
    private final class Builder: NSObject, XMLParserDelegate {
        var stack: [XMLTreeElement] = []
        var root: XMLTreeElement?
        var failure: XMLTreeError?
        let maximumDepth: Int

        init(maximumDepth: Int) { self.maximumDepth = maximumDepth }

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
            guard failure == nil else { return }
            if root != nil && stack.isEmpty {
                fail(parser, "a second root element <\(elementName)>")
                return
            }
            guard stack.count < maximumDepth else {
                fail(parser, "elements nested deeper than \(maximumDepth)")
                return
            }
            stack.append(XMLTreeElement(name: elementName, attributes: attributeDict, children: [], line: max(parser.lineNumber, 1)))
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            guard failure == nil, let element = stack.popLast() else { return }
            if stack.isEmpty {
                root = element
            } else {
                stack[stack.count - 1].children.append(element)
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard failure == nil, !stack.isEmpty else { return }
            stack[stack.count - 1].text += string
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            guard failure == nil, !stack.isEmpty else { return }
            stack[stack.count - 1].text += String(decoding: CDATABlock, as: UTF8.self)
        }

        func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
            Data()
        }

        private func fail(_ parser: XMLParser, _ reason: String) {
            failure = XMLTreeError(line: max(parser.lineNumber, 1), column: max(parser.columnNumber, 0), reason: reason)
            parser.abortParsing()
        }
    }
}
