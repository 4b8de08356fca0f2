import Foundation

/// The size of the file at `url` in bytes (0 when it cannot be read).
public func fileSize(_ url: URL) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
}
