import Foundation

/// The uniform type identifiers `UTI-CONFORMS-TO` knows: the common `public.*` tree (and a
/// few `com.*` types every platform declares), each with the types it conforms to directly.
/// Identifiers compare ignoring ASCII case, as UTIs do.
enum UniformTypeTree {
    static let parents: [String: [String]] = [
        "public.item": [],
        "public.content": [],
        "public.composite-content": ["public.content"],
        "public.data": ["public.item"],
        "public.directory": ["public.item"],
        "public.folder": ["public.directory"],
        "public.volume": ["public.folder"],
        "com.apple.package": ["public.directory"],
        "com.apple.bundle": ["public.directory"],
        "com.apple.application": ["public.item"],
        "com.apple.application-bundle": ["com.apple.application", "com.apple.bundle", "com.apple.package"],
        "public.symlink": ["public.item"],
        "public.alias-file": ["public.item"],
        "public.url": ["public.data"],
        "public.file-url": ["public.url"],
        "public.text": ["public.data", "public.content"],
        "public.plain-text": ["public.text"],
        "public.utf8-plain-text": ["public.plain-text"],
        "public.utf16-plain-text": ["public.plain-text"],
        "public.utf16-external-plain-text": ["public.plain-text"],
        "public.delimited-values-text": ["public.text"],
        "public.comma-separated-values-text": ["public.delimited-values-text"],
        "public.tab-separated-values-text": ["public.delimited-values-text"],
        "public.utf8-tab-separated-values-text": ["public.tab-separated-values-text"],
        "public.rtf": ["public.text"],
        "public.html": ["public.text"],
        "public.xml": ["public.text"],
        "public.json": ["public.text"],
        "public.yaml": ["public.text"],
        "public.source-code": ["public.plain-text"],
        "public.script": ["public.source-code"],
        "public.shell-script": ["public.script"],
        "public.python-script": ["public.script"],
        "public.c-source": ["public.source-code"],
        "public.c-header": ["public.source-code"],
        "public.swift-source": ["public.source-code"],
        "public.log": ["public.plain-text"],
        "public.vcard": ["public.text", "public.contact"],
        "public.contact": ["public.item"],
        "public.calendar-event": ["public.item"],
        "public.message": ["public.item"],
        "public.image": ["public.data", "public.content"],
        "public.jpeg": ["public.image"],
        "public.png": ["public.image"],
        "public.tiff": ["public.image"],
        "public.heif-standard": ["public.image"],
        "public.heic": ["public.heif-standard"],
        "public.heif": ["public.heif-standard"],
        "public.svg-image": ["public.image", "public.xml"],
        "public.camera-raw-image": ["public.image"],
        "com.compuserve.gif": ["public.image"],
        "com.microsoft.bmp": ["public.image"],
        "com.microsoft.ico": ["public.image"],
        "org.webmproject.webp": ["public.image"],
        "public.audiovisual-content": ["public.data", "public.content"],
        "public.movie": ["public.audiovisual-content"],
        "public.video": ["public.movie"],
        "public.audio": ["public.audiovisual-content"],
        "public.mpeg": ["public.movie"],
        "public.mpeg-4": ["public.movie"],
        "public.mpeg-2-video": ["public.movie"],
        "public.avi": ["public.movie"],
        "com.apple.quicktime-movie": ["public.movie"],
        "public.mp3": ["public.audio"],
        "public.mpeg-4-audio": ["public.mpeg-4", "public.audio"],
        "com.apple.m4a-audio": ["public.mpeg-4-audio"],
        "public.aiff-audio": ["public.audio"],
        "com.microsoft.waveform-audio": ["public.audio"],
        "com.adobe.pdf": ["public.data", "public.composite-content"],
        "public.presentation": ["public.composite-content"],
        "public.spreadsheet": ["public.content"],
        "public.archive": ["public.data"],
        "public.zip-archive": ["com.pkware.zip-archive"],
        "com.pkware.zip-archive": ["public.archive"],
        "org.gnu.gnu-zip-archive": ["public.archive"],
        "public.tar-archive": ["public.archive"],
        "public.executable": ["public.item"],
        "public.database": ["public.data"],
        "public.font": ["public.data", "public.content"],
    ]

    static func isKnown(_ identifier: String) -> Bool { parents[identifier.lowercased()] != nil }

    /// Whether `identifier` is `ancestor` or conforms to it (an identifier outside the tree
    /// conforms only to itself).
    static func conforms(_ identifier: String, to ancestor: String) -> Bool {
        let target = ancestor.lowercased()
        var pending = [identifier.lowercased()]
        var seen = Set<String>()
        while let next = pending.popLast() {
            if next == target { return true }
            guard seen.insert(next).inserted else { continue }
            pending.append(contentsOf: parents[next] ?? [])
        }
        return false
    }
}
