import Foundation

/// A Core Data mapping model as Xcode keeps it (`Name.xcmappingmodel/xcmapping.xml`), read
/// as written: the two model versions it maps between (by the paths Xcode records), and its
/// entity and property mappings with their value expressions as text. It is checked against
/// the two models and turned into a migration step by
/// ``MigrationMapping/fromMappingModel(_:source:destination:sourceLabel:destinationLabel:)``.
///
/// ```swift
/// let mapping = try XcodeMappingModel(contentsOf: URL(fileURLWithPath: "Shop1to2.xcmappingmodel"))
/// mapping.sourceVersion       // "Shop"   (from "Shop.xcdatamodeld/Shop.xcdatamodel")
/// mapping.destinationVersion  // "Shop 2"
/// ```
public struct XcodeMappingModel: Sendable, Equatable {
    /// The mapping model's file name (`Shop1to2.xcmappingmodel`), for messages.
    public var name: String
    /// The source model's path as Xcode records it (`sourcemodelpath`), if it does.
    public var sourceModelPath: String?
    /// The destination model's path as Xcode records it (`destinationmodelpath`), if it does.
    public var destinationModelPath: String?
    /// The entity mappings, in Xcode's order (`mappingnumber`).
    public var entityMappings: [Entity]

    /// One entity mapping (`XDDEVENTITYMAPPING`).
    public struct Entity: Sendable, Equatable {
        /// The mapping's name: as written, else Core Data's default `SourceToDestination`.
        public var name: String
        /// The source entity; nil for an added entity.
        public var sourceName: String?
        /// The destination entity; nil for a removed entity.
        public var destinationName: String?
        /// Xcode's mapping type name: `Copy`, `Add`, `Remove`, `Transform`, `Custom`, `Undefined`.
        public var typeName: String?
        /// A custom `NSEntityMigrationPolicy` subclass, if one is named.
        public var policyClassName: String?
        /// A source expression or filter predicate that is not the default fetch of every source object.
        public var customSource: String?
        /// The attribute mappings.
        public var attributes: [Property]
        /// The relationship mappings.
        public var relationships: [Property]
    }

    /// One attribute or relationship mapping (`XDDEVATTRIBUTEMAPPING`, `XDDEVRELATIONSHIPMAPPING`).
    public struct Property: Sendable, Equatable {
        /// The destination property's name.
        public var name: String
        /// How its value is made.
        public var value: Value
        /// The line of `xcmapping.xml` it is written on.
        public var line: Int

        /// Where a property mapping's value comes from, as Xcode writes it.
        public enum Value: Sendable, Equatable {
            /// An NSExpression format string (`valueexpressionasstring`): `$source.name`,
            /// `$source.price * 100`, `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "AToB", $source.items)`.
            case expression(String)
            /// The expression Xcode generates (`autogenerateexpression`): the source property of the same name.
            case generated
            /// A relationship filled through a key path and the entity mapping of its objects
            /// (`sourcekeypath`, `sourcemappingname`).
            case relationshipKeyPath(String, mappingName: String?)
            /// Only an archived NSExpression (`valueexpressiondata`), which is not read.
            case archivedExpression
            /// No value expression: the destination property keeps its default.
            case none
        }
    }

    /// The source version's name: the last component of ``sourceModelPath`` without `.xcdatamodel`.
    public var sourceVersion: String? { sourceModelPath.map(Self.versionName) }
    /// The destination version's name: the last component of ``destinationModelPath`` without `.xcdatamodel`.
    public var destinationVersion: String? { destinationModelPath.map(Self.versionName) }
    /// The bundle (`.xcdatamodeld`) the source path names, without its extension, if it names one.
    public var bundleName: String? {
        for path in [sourceModelPath, destinationModelPath].compactMap({ $0 }) {
            if let component = path.split(separator: "/").last(where: { $0.hasSuffix(".xcdatamodeld") }) {
                return String(component.dropLast(".xcdatamodeld".count))
            }
        }
        return nil
    }

    /// A version's name from a recorded model path.
    static func versionName(_ path: String) -> String {
        let last = path.split(separator: "/").last.map(String.init) ?? path
        return last.hasSuffix(".xcdatamodel") ? String(last.dropLast(".xcdatamodel".count)) : last
    }

    /// Whether the mapping model was made for this pair of versions: the version names its
    /// recorded paths end in, and the bundle (when both name one).
    public func maps(from source: String, to destination: String, bundle: String? = nil) -> Bool {
        guard sourceVersion == source, destinationVersion == destination else { return false }
        guard let bundle, let mine = bundleName else { return true }
        return bundle == mine
    }
}
