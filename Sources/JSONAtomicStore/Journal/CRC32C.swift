/// CRC-32C (Castagnoli), the checksum of each journal record (`docs/FILE_FORMAT.md`,
/// "Record checksums"): the CRC PostgreSQL's WAL, iSCSI and ext4 use. Parameters: polynomial
/// 0x1EDC6F41 (reflected 0x82F63B78), initial value 0xFFFFFFFF, input and output reflected,
/// final XOR 0xFFFFFFFF; the check value of the ASCII bytes `123456789` is 0xE3069283.
///
/// Table-driven, eight bytes per step ("slicing-by-8"), so that verifying a record costs a
/// small part of parsing it.
enum CRC32C {
    /// The reflected polynomial.
    static let polynomial: UInt32 = 0x82F6_3B78

    /// Eight tables of 256 entries: `tables[0]` is the classic byte-at-a-time table; entry
    /// `k * 256 + b` of the others is the CRC of byte `b` followed by `k` zero bytes.
    static let tables: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ polynomial : crc >> 1 }
            table[byte] = crc
        }
        for byte in 0..<256 {
            var crc = table[byte]
            for slice in 1..<8 {
                crc = table[Int(crc & 0xFF)] ^ (crc >> 8)
                table[slice * 256 + byte] = crc
            }
        }
        return table
    }()

    /// The CRC-32C of `bytes`.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        ~update(0xFFFF_FFFF, bytes)
    }

    /// The CRC-32C of `bytes`.
    static func checksum<Bytes: Sequence>(_ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
        if let crc = bytes.withContiguousStorageIfAvailable({ checksum(UnsafeRawBufferPointer($0)) }) { return crc }
        return Array(bytes).withUnsafeBytes { checksum($0) }
    }

    /// Runs the register `crc` (not yet complemented) over `bytes`.
    static func update(_ start: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = start
        tables.withUnsafeBufferPointer { table in
            var index = 0
            let count = bytes.count
            while count - index >= 8 {
                let low = crc ^ (UInt32(bytes[index]) | UInt32(bytes[index &+ 1]) << 8
                    | UInt32(bytes[index &+ 2]) << 16 | UInt32(bytes[index &+ 3]) << 24)
                crc = table[7 &* 256 &+ Int(low & 0xFF)] ^ table[6 &* 256 &+ Int((low >> 8) & 0xFF)]
                    ^ table[5 &* 256 &+ Int((low >> 16) & 0xFF)] ^ table[4 &* 256 &+ Int(low >> 24)]
                    ^ table[3 &* 256 &+ Int(bytes[index &+ 4])] ^ table[2 &* 256 &+ Int(bytes[index &+ 5])]
                    ^ table[1 &* 256 &+ Int(bytes[index &+ 6])] ^ table[Int(bytes[index &+ 7])]
                index &+= 8
            }
            while index < count {
                crc = table[Int((crc ^ UInt32(bytes[index])) & 0xFF)] ^ (crc >> 8)
                index &+= 1
            }
        }
        return crc
    }
}
