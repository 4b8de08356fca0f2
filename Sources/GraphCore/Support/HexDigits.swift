/// Hexadecimal digits in text, for the readers that resolve `\uXXXX` escapes by hand.
public enum HexDigits {
    /// The value of one ASCII hexadecimal digit (`0`-`9`, `a`-`f`, `A`-`F`), else nil.
    @inline(__always)
    public static func value(of byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
