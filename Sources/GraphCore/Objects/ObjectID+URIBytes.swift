extension ObjectID {
    /// Calls `body` with the UTF-8 bytes of ``uriRepresentation``, made without a `String` for an
    /// integer reference (every object of an atomic store or of PostgreSQL): the encoders that
    /// write an ID for every object and relationship of an answer spell it into a buffer on the
    /// stack instead of allocating, joining and freeing a string each time.
    public func withURIBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        guard let store = storage.store, case .int(let number) = storage.reference else {
            var text = uriRepresentation
            return try text.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
        }
        var identifier = store.identifier, entity = storage.entity.name
        return try identifier.withUTF8 { identifier in
            try entity.withUTF8 { entity in
                // "graph://" + identifier + "/" + entity + "/" + at most 20 characters of an Int64.
                let capacity = 8 + identifier.count + 1 + entity.count + 1 + 20
                return try withUnsafeTemporaryAllocation(byteCount: capacity, alignment: 1) { buffer in
                    var end = 0
                    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
                        UnsafeMutableRawBufferPointer(rebasing: buffer[end..<end + bytes.count]).copyMemory(from: UnsafeRawBufferPointer(bytes))
                        end += bytes.count
                    }
                    Self.uriScheme.withUnsafeBufferPointer { append($0) }
                    append(identifier)
                    buffer[end] = UInt8(ascii: "/")
                    end += 1
                    append(entity)
                    buffer[end] = UInt8(ascii: "/")
                    end += 1
                    end = Self.writeDecimal(number, into: buffer, at: end)
                    return try body(UnsafeRawBufferPointer(rebasing: buffer[..<end]))
                }
            }
        }
    }

    private static let uriScheme: [UInt8] = Array("graph://".utf8)

    /// Writes `number` in decimal at `start` (room for 20 bytes) and returns the end.
    private static func writeDecimal(_ number: Int64, into buffer: UnsafeMutableRawBufferPointer, at start: Int) -> Int {
        var position = start
        if number < 0 {
            buffer[position] = UInt8(ascii: "-")
            position += 1
        }
        var magnitude = number.magnitude  // UInt64: Int64.min has one
        var digits = 1
        var scale: UInt64 = 1
        while magnitude / scale >= 10 {
            scale *= 10
            digits += 1
        }
        for _ in 0..<digits {
            buffer[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude / scale)
            magnitude %= scale
            scale /= 10
            position += 1
        }
        return position
    }
}
