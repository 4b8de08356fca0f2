import GraphCore

/// The workload both benchmarks measure: `Person` with 4 attributes (string, int64, double,
/// date) and one to-one relationship, `partner`, whose inverse is itself.
public enum PersonModel {
    public static func make() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Person", attributes: [
                AttributeDescription("name", .string),
                AttributeDescription("serial", .int64),
                AttributeDescription("score", .double),
                AttributeDescription("born", .date),
            ], relationships: [
                // Each person has one partner, whose partner is them: a to-one with a to-one inverse.
                RelationshipDescription("partner", destination: "Person", inverse: "partner"),
            ]),
        ])
    }
}
