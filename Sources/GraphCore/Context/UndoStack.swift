/// The changes a context can undo and redo, in groups.
///
/// Each public change (a value set with its inverse updates, a delete with its cascade, an
/// insert) is one group unless ``ObjectContext/undoGroup(_:)`` gathers several. The stack
/// reaches back to the last save or rollback.
final class UndoStack {
    enum Step {
        case set(ManagedObject, index: Int, old: Value, new: Value)
        case insert(ManagedObject)
        case delete(ManagedObject)
    }

    private(set) var undoGroups: [[Step]] = []
    private(set) var redoGroups: [[Step]] = []
    private var open: [Step] = []
    private var depth = 0
    /// While replaying, steps are recorded into `replayed` instead (for the opposite stack).
    private var replaying = false
    private var replayed: [Step] = []

    func record(_ step: Step) {
        if replaying {
            replayed.append(step)
            return
        }
        open.append(step)
        if depth == 0 { closeGroup() }
    }

    func beginGroup() { depth += 1 }

    func endGroup() {
        depth = max(0, depth - 1)
        if depth == 0 { closeGroup() }
    }

    private func closeGroup() {
        guard !open.isEmpty else { return }
        undoGroups.append(open)
        open = []
        redoGroups.removeAll()
    }

    func removeAll() {
        undoGroups.removeAll()
        redoGroups.removeAll()
        open.removeAll()
    }

    /// Pops the newest group to undo; `replay` applies its steps and what it records becomes
    /// the matching redo group.
    func undo(_ replay: ([Step]) throws -> Void) rethrows -> Bool {
        guard let group = undoGroups.popLast() else { return false }
        let steps = try run(group, replay)
        redoGroups.append(steps)
        return true
    }

    func redo(_ replay: ([Step]) throws -> Void) rethrows -> Bool {
        guard let group = redoGroups.popLast() else { return false }
        let steps = try run(group, replay)
        undoGroups.append(steps)
        return true
    }

    private func run(_ group: [Step], _ replay: ([Step]) throws -> Void) rethrows -> [Step] {
        replaying = true
        replayed = []
        defer { replaying = false }
        try replay(group)
        return replayed
    }

    var canUndo: Bool { !undoGroups.isEmpty }
    var canRedo: Bool { !redoGroups.isEmpty }
}

extension ObjectContext {
    /// Whether changes are recorded for undo (off by default: recording costs memory).
    public var isUndoEnabled: Bool {
        get { undoStack != nil }
        set { undoStack = newValue ? (undoStack ?? UndoStack()) : nil }
    }

    /// Whether ``undo()`` has a group of changes to revert.
    public var canUndo: Bool { undoStack?.canUndo ?? false }
    /// Whether ``redo()`` has an undone group of changes to make again.
    public var canRedo: Bool { undoStack?.canRedo ?? false }

    /// Gathers the changes made in `body` into one undo group.
    public func undoGroup<T>(_ body: () throws -> T) rethrows -> T {
        undoStack?.beginGroup()
        defer { undoStack?.endGroup() }
        return try body()
    }

    /// Reverts the newest group of changes.
    ///
    /// - Throws: ``GraphError/nothingToUndo`` when undo is off or nothing is left to undo.
    public func undo() throws {
        guard let undoStack, try undoStack.undo({ try replay($0.reversed()) }) else {
            throw GraphError.nothingToUndo
        }
    }

    /// Makes the newest undone group of changes again.
    ///
    /// - Throws: ``GraphError/nothingToUndo`` when undo is off or nothing is left to redo.
    public func redo() throws {
        guard let undoStack, try undoStack.redo({ try replay($0.reversed()) }) else {
            throw GraphError.nothingToUndo
        }
    }

    /// Applies the inverse of each step (steps are the inverses already when redoing).
    private func replay(_ steps: [UndoStack.Step]) throws {
        for step in steps {
            switch step {
            case .set(let object, let index, let old, _):
                if object.isFault { try fulfillFault(object) }
                setPrimitive(old, at: index, of: object)
            case .insert(let object):
                // Undo an insert: the object leaves the context's changes (as if never inserted).
                object.flags.insert(.deleted)
                list(object)
                undoStack?.record(.delete(object))
            case .delete(let object):
                object.flags.remove(.deleted)
                undoStack?.record(.insert(object))
            }
        }
    }
}
