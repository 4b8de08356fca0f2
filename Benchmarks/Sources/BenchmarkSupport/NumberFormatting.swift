import Foundation

/// `1234567` → `1,234,567`.
public func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var out = ""
    for (offset, character) in digits.enumerated() {
        if offset > 0, (digits.count - offset) % 3 == 0 { out.append(",") }
        out.append(character)
    }
    return value < 0 ? "-" + out : out
}

/// `value` with `digits` digits after the point.
public func fixed(_ value: Double, _ digits: Int = 0) -> String { String(format: "%.\(digits)f", value) }
