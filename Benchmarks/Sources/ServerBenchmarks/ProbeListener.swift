import BenchmarkSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Many subscriber sockets read by one thread with `poll()`: for every `probe-<k>` marker that
/// arrives on a socket it notes the arrival time of probe `k` there. The marker is the label of
/// a probe save (docserver) or the payload of a PUBLISH (Redis), so that one listener measures
/// both the same way.
final class ProbeListener: @unchecked Sendable {
    // @unchecked: `arrivals` is touched only with `lock` held; the sockets only by the thread.
    private let sockets: [Int32]
    private let lock = NSLock()
    private var arrivals: [Int: [UInt64]] = [:]
    private var stopped = false
    private let finished = DispatchSemaphore(value: 0)

    /// Listens on `sockets` (connected, subscribed) until ``stop()``; closes them then.
    init(sockets: [Int32]) {
        self.sockets = sockets
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "probe listener"
        thread.start()
    }

    /// Stops the thread, closes the sockets and returns the arrival times by probe.
    func stop() -> [Int: [UInt64]] {
        lock.lock()
        stopped = true
        lock.unlock()
        finished.wait()
        for socket in sockets { close(socket) }
        lock.lock()
        defer { lock.unlock() }
        return arrivals
    }

    private static let marker = Array("probe-".utf8)

    private func run() {
        var fds = sockets.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var carry = [[UInt8]](repeating: [], count: sockets.count)  // a marker cut by a read
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            lock.lock()
            let done = stopped
            lock.unlock()
            if done { break }
            let ready = poll(&fds, nfds_t(fds.count), 50)
            guard ready > 0 else { continue }
            let now = MonotonicClock.nanoseconds()
            var found: [Int] = []
            for index in fds.indices where fds[index].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(fds[index].fd, $0.baseAddress, $0.count) }
                guard count > 0 else {
                    fds[index].fd = -1  // closed: poll ignores negative descriptors
                    continue
                }
                let bytes = carry[index] + buffer[..<count]
                var position = 0
                var keepFrom = max(0, bytes.count - 24)
                while let start = Self.find(Self.marker, in: bytes, from: position) {
                    var end = start + Self.marker.count
                    var number = 0
                    while end < bytes.count, bytes[end] >= 0x30, bytes[end] <= 0x39 {
                        number = number * 10 + Int(bytes[end] - 0x30)
                        end += 1
                    }
                    if end == bytes.count {  // the number may go on in the next read
                        keepFrom = start
                        break
                    }
                    found.append(number)
                    position = end
                    keepFrom = max(keepFrom, end)
                }
                carry[index] = keepFrom < bytes.count ? Array(bytes[max(keepFrom, position)...]) : []
            }
            if !found.isEmpty {
                lock.lock()
                for number in found { arrivals[number, default: []].append(now) }
                lock.unlock()
            }
        }
        finished.signal()
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard haystack.count >= needle.count, from <= haystack.count - needle.count else { return nil }
        var index = from
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0], haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}

/// A connected TCP socket (blocking), for subscribers and probes.
func connectSocket(host: String, port: Int) throws -> Int32 {
    var hints = addrinfo()
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var list: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list else { throw BenchmarkError("cannot resolve \(host)") }
    defer { freeaddrinfo(list) }
    let descriptor = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
    guard descriptor >= 0, connect(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
        throw BenchmarkError("cannot connect to \(host):\(port): errno \(errno)")
    }
    var one: Int32 = 1
    setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    return descriptor
}

/// Writes all of `bytes` to `socket`.
func writeAll(_ socket: Int32, _ bytes: [UInt8]) throws {
    var sent = 0
    while sent < bytes.count {
        let count = bytes.withUnsafeBytes { write(socket, $0.baseAddress.map { $0 + sent }, $0.count - sent) }
        guard count > 0 else { throw BenchmarkError("write failed, errno \(errno)") }
        sent += count
    }
}

/// Reads from `socket` until `bytes` holds `needle` (a subscription's answer), within 10 s.
func readUntil(_ socket: Int32, contains needle: String) throws {
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    let wanted = Array(needle.utf8)
    let deadline = MonotonicClock.nanoseconds() + 10_000_000_000
    while MonotonicClock.nanoseconds() < deadline {
        let count = chunk.withUnsafeMutableBytes { read(socket, $0.baseAddress, $0.count) }
        guard count > 0 else { throw BenchmarkError("the connection closed before \(needle)") }
        received += chunk[..<count]
        if received.count >= wanted.count,
           (0...(received.count - wanted.count)).contains(where: { received[$0..<($0 + wanted.count)].elementsEqual(wanted) }) { return }
    }
    throw BenchmarkError("no \(needle) within 10 s")
}
