import GraphCore

/// The store as one JSON file (issue 4 fills this in).
public enum JSONAtomicStorePlaceholder {}
