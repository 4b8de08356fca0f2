import ArgumentParser
import Foundation
import GraphCore
import JSONAtomicStore
import JSONCore

/// `docserver restore`: a new store from a backup directory, at one of the commits it reaches.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Make a new store from a backup directory, as it was right after one of the commits the backup reaches.",
        discussion: """
            Checks every file of the backup against its manifest (size, CRC-32C), copies the base snapshot to STORE, \\
            replays the backup's records up to the commit asked for (--to-seq N, or the last one made at or before \\
            --to-time T; the backup's newest by default) with the store's own checks, and folds them into a new \\
            snapshot. STORE must not exist. A commit outside the backup is refused, naming the oldest and newest it \\
            reaches. Exit status: 0 with a one-line summary; 1 when the backup is damaged or does not replay; 2 when \\
            it cannot restore: no manifest, a commit or time the backup cannot reach, STORE exists, the model cannot \\
            be used.
            """
    )

    @Option(help: ArgumentHelp("The model: a JSON model file (docs/MODEL.md) or an Xcode .xcdatamodeld / .xcdatamodel (its current version); the built-in sample model when omitted.", valueName: "path"))
    var model: String?

    @Option(help: ArgumentHelp("The backup directory.", valueName: "dir"))
    var from: String

    @Option(help: ArgumentHelp("The new store file.", valueName: "file"))
    var to: String

    @Option(name: .customLong("to-seq"), help: ArgumentHelp("Restore the store as it was right after this commit.", valueName: "seq"))
    var toSequence: Int64?

    @Option(name: .customLong("to-time"), help: ArgumentHelp("Restore the store as it was after the last commit made at or before this time (ISO 8601, as 2026-11-29T03:00:00Z).", valueName: "time"))
    var toTime: String?

    @Option(help: ArgumentHelp("How many of the replayed commits stay in the new store's history file (the server's --history-commits).", valueName: "count"))
    var historyCommits: Int = 10_000

    func validate() throws {
        if toSequence != nil, toTime != nil { throw ValidationError("give --to-seq or --to-time, not both") }
        if let toSequence, toSequence < 0 { throw ValidationError("--to-seq must be 0 or more") }
        guard (0...10_000_000).contains(historyCommits) else { throw ValidationError("--history-commits must be from 0 to 10000000") }
    }

    func run() throws {
        let objectModel: ObjectModel
        do {
            objectModel = try SampleModel.load(path: model)
        } catch {
            FileHandle.standardError.write(Data("cannot restore: the model cannot be used: \(error)\n".utf8))
            throw ExitCode(2)
        }
        var target = StoreRestore.Target.newest
        if let toSequence { target = .sequence(toSequence) }
        if let toTime {
            var text = toTime
            guard case .date(let date)? = text.withUTF8({ ValueForm.value(string: UnsafeRawBufferPointer($0), as: .date) }) else {
                throw ValidationError("--to-time must be an ISO 8601 date and time, as 2026-11-29T03:00:00Z, not \(toTime)")
            }
            target = .time(date)
        }
        JSONAtomicStore.register()
        do {
            let outcome = try StoreRestore.restore(from: from, to: to, model: objectModel, target: target, historyRecords: historyCommits)
            print("\(to): restored at commit \(outcome.sequence), \(outcome.objects) objects (\(outcome.replayed) record(s) replayed onto the backup's base)")
        } catch let error as BackupError {
            FileHandle.standardError.write(Data("cannot restore: \(error)\n".utf8))
            throw ExitCode(error.isDamage ? 1 : 2)
        } catch {
            FileHandle.standardError.write(Data("cannot restore: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
