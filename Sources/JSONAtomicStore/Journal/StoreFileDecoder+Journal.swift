import GraphCore

extension StoreFileDecoder {
    /// How far the decoder's output reached, to roll back a journal record that turned out torn.
    struct JournalMark {
        let nodes: Int, toOne: Int, toMany: Int, pool: Int
        let maxReference: Int64
    }

    func journalMark() -> JournalMark {
        JournalMark(nodes: nodes.count, toOne: toOne.count, toMany: toMany.count, pool: referencePool.count,
                    maxReference: maxReference)
    }

    /// Forgets everything decoded after `mark`, and any state of a record read half.
    func rollBack(to mark: JournalMark) {
        if nodes.count > mark.nodes { nodes.removeSubrange(mark.nodes...) }
        if nodeEntities.count > mark.nodes { nodeEntities.removeSubrange(mark.nodes...) }
        if nodeReferences.count > mark.nodes { nodeReferences.removeSubrange(mark.nodes...) }
        if toOne.count > mark.toOne { toOne.removeSubrange(mark.toOne...) }
        if toMany.count > mark.toMany { toMany.removeSubrange(mark.toMany...) }
        if referencePool.count > mark.pool { referencePool.removeSubrange(mark.pool...) }
        maxReference = mark.maxReference
        afterSkip = nil
        skipDepth = 0
        skippedKeys = []
        state = .done
    }
}
