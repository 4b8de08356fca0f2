import CYajl
import Testing

/// The system library target links and its shim's fixed-argument wrappers work.
@Suite struct CYajlTests {
    @Test func yajlIsVersionTwoOrLater() {
        #expect(yajl_version() >= 20000)
    }

    @Test func completeParseRejectsATruncatedDocumentAndRefusesComments() {
        var callbacks = yajl_callbacks()
        guard let handle = yajl_alloc(&callbacks, nil, nil) else {
            Issue.record("yajl_alloc failed")
            return
        }
        defer { yajl_free(handle) }
        #expect(cyajl_config_bool(handle, yajl_allow_comments, 0) != 0)
        let text = Array("[1, /* no */ 2".utf8)
        let status = text.withUnsafeBufferPointer { yajl_parse(handle, $0.baseAddress, $0.count) }
        #expect(status == yajl_status_error)
    }

    @Test func generatorWritesCompactJSON() {
        guard let gen = yajl_gen_alloc(nil) else {
            Issue.record("yajl_gen_alloc failed")
            return
        }
        defer { yajl_gen_free(gen) }
        #expect(cyajl_gen_config_bool(gen, yajl_gen_beautify, 0) != 0)
        yajl_gen_map_open(gen)
        let key = Array("a".utf8)
        _ = key.withUnsafeBufferPointer { yajl_gen_string(gen, $0.baseAddress, $0.count) }
        yajl_gen_integer(gen, Int64.max)
        yajl_gen_map_close(gen)
        var buffer: UnsafePointer<UInt8>?
        var length = 0
        yajl_gen_get_buf(gen, &buffer, &length)
        let output = buffer.map { String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self) }
        #expect(output == "{\"a\":9223372036854775807}")
    }
}
