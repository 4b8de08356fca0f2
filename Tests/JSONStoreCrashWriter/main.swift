// Test support for the crash test (Tests/JSONAtomicStoreTests/CrashTests.swift): opens a
// JSON store and saves in a loop until it is killed, announcing each save once it returned.
//
//     JSONStoreCrashWriter <model file> <store file> <filler objects>
//
// Prints `ready <next seq>` once the store is open, then `saved <seq>` after each save has
// returned (written straight to the stdout file descriptor, unbuffered). Each save inserts
// one Entry with the next sequence number, links it to the single Counter and sets the
// counter's value to it: one insert and one update, with an inverse, per save. Each save
// appends to the journal; the journal is checkpointed every 64 KiB (every few saves), so
// that kills land mid-append, mid-checkpoint and between a checkpoint's steps too.
import Foundation
import GraphCore
import JSONAtomicStore

func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    bytes.withUnsafeBytes { buffer in
        guard let base = buffer.baseAddress else { return }
        var offset = 0
        while offset < buffer.count {
            let written = write(1, base + offset, buffer.count - offset)
            if written <= 0 { exit(3) }
            offset += written
        }
    }
}

func run() throws {
    let arguments = CommandLine.arguments
    guard arguments.count == 4, let fillers = Int(arguments[3]) else {
        FileHandle.standardError.write(Data("usage: JSONStoreCrashWriter <model file> <store file> <filler objects>\n".utf8))
        exit(2)
    }
    JSONAtomicStore.register()
    let container = try PersistentContainer(
        modelFile: URL(fileURLWithPath: arguments[1]), storeType: JSONAtomicStore.storeType,
        storeURL: URL(fileURLWithPath: arguments[2]),
        options: StoreOptions(values: [JSONAtomicStore.journalCheckpointBytesOption: "65536"]))
    let context = container.viewContext

    let counter: ManagedObject
    if let existing = try context.fetch(FetchRequest(entityName: "Counter")).first {
        counter = existing
    } else {
        counter = try context.insert("Counter")
        // Filler makes each save write a file of some size, so that kills land mid-write.
        let payload = String(repeating: "filler ", count: 20)
        for index in 0..<fillers {
            let entry = try context.insert("Entry", values: [
                "seq": .int(Int64(-1 - index)), "payload": .string(payload), "at": .date(Date()),
            ])
            try entry.setObject(counter, forKey: "counter")
        }
        try context.save()
    }
    let next = try counter.get("value", as: Int64.self) + 1
    say("ready \(next)")

    var seq = next
    while true {
        let entry = try context.insert("Entry", values: [
            "seq": .int(seq), "payload": .string("entry \(seq) ÿ 🎵"), "at": .date(Date()),
        ])
        try entry.setObject(counter, forKey: "counter")
        try counter.set("value", seq)
        try context.save()
        say("saved \(seq)")
        seq += 1
    }
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("JSONStoreCrashWriter: \(error)\n".utf8))
    exit(1)
}
