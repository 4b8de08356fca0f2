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

        func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
            Data()
        }

        private func fail(_ parser: XMLParser, _ reason: String) {
            failure = XMLTreeError(line: max(parser.lineNumber, 1), column: max(parser.columnNumber, 0), reason: reason)
            parser.abortParsing()
        }
    }
}
