import Foundation
import Testing

@testable import BowTiesKit

@Suite("ColorAttributeTransformer")
struct ColorAttributeTransformerTests {
    let transformer = ColorAttributeTransformer()

    @Test func roundTrip() throws {
        let color = Color(red: 200.0 / 255, green: 30.0 / 255, blue: 45.0 / 255, alpha: 0.5)
        let data = try transformer.transformedValue(.color(color))
        #expect(data.count == 36)
        #expect(try transformer.reverseTransformedValue(data) == .color(color))
        #expect(color.hexString == "#C81E2D")
    }

    @Test func refusesDataItDidNotProduce() throws {
        let good = try transformer.transformedValue(.color(Color(red: 1, green: 0, blue: 0)))
        var wrongMagic = good
        wrongMagic[0] = UInt8(ascii: "X")
        var nanComponent = good
        nanComponent.replaceSubrange(4..<12, with: withUnsafeBytes(of: Double.nan.bitPattern.bigEndian) { Data($0) })
        var outOfRange = good
        outOfRange.replaceSubrange(4..<12, with: withUnsafeBytes(of: (2.0).bitPattern.bigEndian) { Data($0) })
        for bad in [Data(), Data("hello".utf8), good.dropLast(), good + [0], wrongMagic, nanComponent, outOfRange] {
            #expect(throws: TransformerError.self) { try transformer.reverseTransformedValue(bad) }
        }
    }

    @Test func refusesValuesThatAreNotColours() {
        #expect(throws: TransformerError.self) { try transformer.transformedValue(.string("red")) }
        #expect(throws: TransformerError.self) {
            try transformer.transformedValue(.color(Color(red: 2, green: 0, blue: 0)))
        }
    }

    @Test func registryFindsTheModelsTransformerByName() throws {
        let name = try #require(BowTieModel.entity["tintColor"]?.valueTransformerName)
        #expect(name == "ColorAttributeTransformer")
        #expect(try ValueTransformerRegistry.shared.transformer(named: name) is ColorAttributeTransformer)
    }

    @Test func unknownTransformerNameIsAClearError() {
        let registry = ValueTransformerRegistry()
        #expect(throws: TransformerError.unknownTransformer("ColorAttributeTransformer")) {
            try registry.transformer(named: "ColorAttributeTransformer")
        }
    }

    @Test func storeWithoutTheTransformerCannotSaveColours() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog(url: directory.path("c.sqlite"), transformers: ValueTransformerRegistry())
        #expect(throws: TransformerError.unknownTransformer("ColorAttributeTransformer")) {
            try catalog.save(BowTie(name: "Red", searchKey: "R", tintColor: Color(red: 1, green: 0, blue: 0)))
        }
        #expect(try catalog.count() == 0)
    }
}
