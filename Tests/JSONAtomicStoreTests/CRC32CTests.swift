import Testing
@testable import JSONAtomicStore

/// The journal's checksum is the standard CRC-32C, so that any other CRC-32C library checks it.
struct CRC32CTests {
    @Test func theCheckValueOf123456789IsE3069283() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
    }

    @Test func knownVectorsFromRFC3720Match() {
        // RFC 3720 (iSCSI) B.4: 32 bytes of zeros, of 0xFF, ascending and descending.
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum((0..<32).map { UInt8($0) }) == 0x46DD_794E)
        #expect(CRC32C.checksum((0..<32).reversed().map { UInt8($0) }) == 0x113F_DB5C)
        #expect(CRC32C.checksum([UInt8]()) == 0)
    }

    @Test func everyLengthAgreesWithTheBitwiseDefinition() {
        // The eight-bytes-a-step path and the byte path against the polynomial itself.
        func bitwise(_ bytes: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            }
            return ~crc
        }
        var bytes: [UInt8] = []
        for length in 0..<70 {
            #expect(CRC32C.checksum(bytes) == bitwise(bytes), "length \(length)")
            bytes.append(UInt8(truncatingIfNeeded: length &* 37 &+ 11))
        }
    }

    @Test func aSealedRecordVerifiesAndOneChangedByteDoesNot() {
        var record = Array(#"{"seq":1,"time":"2026-11-24T22:50:01.123Z"}"#.utf8)
        JournalFormat.seal(&record)
        #expect(String(decoding: record, as: UTF8.self).hasPrefix(#"{"seq":1,"time":"2026-11-24T22:50:01.123Z","crc":""#))
        #expect(record.withUnsafeBytes { JournalFormat.verify($0) } == nil)
        for index in record.indices {
            var changed = record
            changed[index] ^= 0x01
            #expect(changed.withUnsafeBytes { JournalFormat.verify($0) } != nil, "byte \(index)")
        }
    }
}
