import Foundation
import Synchronization

/// Turns an attribute value into stored data and back, like
/// `NSValueTransformer` subclasses named in a Core Data model.
///
/// Decoding data the transformer did not produce must throw, never crash.
public protocol AttributeValueTransformer: Sendable {
    /// Encodes `value` for storage.
    /// - Throws: ``TransformerError`` when the value is of the wrong kind.
    func transformedValue(_ value: AttributeValue) throws -> Data
    /// Decodes stored data.
    /// - Throws: ``TransformerError/malformedData(transformer:reason:)``.
    func reverseTransformedValue(_ data: Data) throws -> AttributeValue
    /// Decodes stored bytes lent by the store (valid during the call
    /// only). The default copies them into a `Data`; a transformer on a
    /// hot path (exports decode one value per row) reads them in place.
    /// - Throws: ``TransformerError/malformedData(transformer:reason:)``.
    func reverseTransformedValue(bytes: UnsafeRawBufferPointer) throws -> AttributeValue
}

extension AttributeValueTransformer {
    public func reverseTransformedValue(bytes: UnsafeRawBufferPointer) throws -> AttributeValue {
        try reverseTransformedValue(Data(bytes))
    }
}

/// Errors of value transformers and their registry.
public enum TransformerError: Error, Sendable, CustomStringConvertible, Equatable {
    case unknownTransformer(String)
    case malformedData(transformer: String, reason: String)
    case unsupportedValue(transformer: String, value: String)

    public var description: String {
        switch self {
        case .unknownTransformer(let name):
            "no value transformer is registered under the name \"\(name)\""
        case .malformedData(let name, let reason):
            "\(name) cannot decode the stored data: \(reason)"
        case .unsupportedValue(let name, let value):
            "\(name) cannot encode \(value)"
        }
    }
}

/// Transformers by name, as `NSValueTransformer.setValueTransformer(_:forName:)`
/// keeps them. The model names a transformer; the store looks it up here.
public final class ValueTransformerRegistry: Sendable {
    /// The registry the catalog uses, with ``ColorAttributeTransformer``
    /// registered under its name.
    public static let shared: ValueTransformerRegistry = {
        let registry = ValueTransformerRegistry()
        registry.register(ColorAttributeTransformer(), forName: ColorAttributeTransformer.name)
        return registry
    }()

    private let transformers = Mutex<[String: any AttributeValueTransformer]>([:])

    public init() {}

    /// Registers `transformer` under `name`, replacing any earlier one.
    public func register(_ transformer: any AttributeValueTransformer, forName name: String) {
        transformers.withLock { $0[name] = transformer }
    }

    /// The transformer registered under `name`.
    /// - Throws: ``TransformerError/unknownTransformer(_:)``.
    public func transformer(named name: String) throws -> any AttributeValueTransformer {
        guard let transformer = transformers.withLock({ $0[name] }) else {
            throw TransformerError.unknownTransformer(name)
        }
        return transformer
    }
}
