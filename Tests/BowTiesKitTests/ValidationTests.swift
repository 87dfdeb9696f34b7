import Foundation
import Testing

@testable import BowTiesKit

@Suite("Validation declared in the model")
struct ValidationTests {
    let entity = BowTieModel.entity

    func failure(_ change: (inout BowTie) -> Void) -> ValidationError? {
        var tie = BowTie(name: "Red", searchKey: "R", rating: 3)
        change(&tie)
        do {
            try entity.validate(tie)
            return nil
        } catch let error as ValidationError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test func validTieValidates() {
        #expect(failure { _ in } == nil)
        #expect(failure { $0.rating = 0 } == nil)
        #expect(failure { $0.rating = 5 } == nil)
    }

    @Test func ratingTooLargeIs1610() throws {
        let error = try #require(failure { $0.rating = 6 })
        #expect(error.code == .numberTooLarge)
        #expect(error.code.rawValue == 1610)
        #expect(error.message == "rating is too large.")
        #expect(error.attribute == "rating")
        #expect(error.value == "6")
        #expect(error.record == "R \"Red\"")
        #expect(error.description.contains("NSValidationNumberTooLargeError 1610"))
    }

    @Test func ratingTooSmallIs1620() throws {
        let error = try #require(failure { $0.rating = -1 })
        #expect(error.code.rawValue == 1620)
        #expect(error.message == "rating is too small.")
    }

    @Test func ratingJustAboveFiveAndNaNAreRefused() throws {
        #expect(failure { $0.rating = 5.0000001 }?.code == .numberTooLarge)
        #expect(failure { $0.rating = .nan }?.code == .managedObject)
        #expect(failure { $0.rating = .infinity }?.code == .numberTooLarge)
    }

    @Test func timesWornMustNotBeNegativeAndMustFitInt32() throws {
        #expect(failure { $0.timesWorn = -1 }?.message == "timesWorn is too small.")
        let values: [String: AttributeValue] = [
            "id": .uuid(UUID()), "name": .string("x"), "rating": .double(1), "isFavorite": .bool(false),
            "timesWorn": .integer(Int64(Int32.max) + 1),
        ]
        #expect(throws: ValidationError.self) {
            try entity.validate(record: "x") { values[$0.name] }
        }
        do {
            try entity.validate(record: "x") { values[$0.name] }
        } catch let error as ValidationError {
            #expect(error.code == .numberTooLarge)
            #expect(error.attribute == "timesWorn")
        } catch {}
    }

    @Test func missingNameIs1570() throws {
        let error = try #require(failure { $0.name = nil })
        #expect(error.code.rawValue == 1570)
        #expect(error.message == "name is a required value.")
    }

    @Test func relativeURLIs1690() throws {
        let error = try #require(failure { $0.url = URL(string: "ties/red") })
        #expect(error.code.rawValue == 1690)
        #expect(failure { $0.url = URL(string: "https://example.com/red") } == nil)
    }

    @Test func emptySearchKeyIsTooShort() throws {
        #expect(failure { $0.searchKey = "" }?.code == .stringTooShort)
    }

    @Test func severalFailuresGive1560WithEachError() throws {
        let error = try #require(
            failure {
                $0.rating = 7
                $0.timesWorn = -3
            })
        #expect(error.code.rawValue == 1560)
        #expect(error.message == "Multiple validation errors occurred.")
        #expect(error.errors.map(\.code) == [.numberTooLarge, .numberTooSmall])
        #expect(error.errors.map(\.attribute) == ["rating", "timesWorn"])
        #expect(error.description.contains("rating is too large."))
        #expect(error.description.contains("timesWorn is too small."))
    }

    @Test func absoluteURIRule() {
        #expect(AttributeDescription.isAbsoluteURI("https://example.com"))
        #expect(AttributeDescription.isAbsoluteURI("mailto:a@b.c"))
        #expect(!AttributeDescription.isAbsoluteURI("example.com/x"))
        #expect(!AttributeDescription.isAbsoluteURI("/absolute/path"))
        #expect(!AttributeDescription.isAbsoluteURI("https:"))
        #expect(!AttributeDescription.isAbsoluteURI("1http://x"))
        #expect(!AttributeDescription.isAbsoluteURI("https://exa mple.com"))
    }
}
