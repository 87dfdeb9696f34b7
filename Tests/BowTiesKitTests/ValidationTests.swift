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

    /// The import's fast path (`keepsEveryRule`) may only say "keeps every
    /// rule" where `brokenRule` finds none: over every type, with and
    /// without bounds, lengths, a pattern, the query-word rule and
    /// optionality, and values of every kind on and around the bounds.
    @Test("the validation fast path never passes a value a rule refuses")
    func fastPathAgreesWithTheRules() {
        let colours = [
            Color(red: 0.2, green: 0.4, blue: 0.6, alpha: 1), Color(red: 1.5, green: 0, blue: 0, alpha: 1),
            Color(red: .nan, green: 0, blue: 0, alpha: 1),
        ]
        var values: [AttributeValue?] = [nil, .bool(true), .uuid(UUID()), .date(Date(timeIntervalSince1970: 0))]
        values += [.date(Date(timeIntervalSince1970: .infinity))]
        values += [-1e12, -3, -0.5, 0, 0.5, 2, 3, 5, 5.01, 1e12, .nan, .infinity].map { AttributeValue.double($0) }
        values += [Int64.min, -3, 0, 2, 5, 6, Int64(Int32.max) + 1, Int64.max].map { AttributeValue.integer($0) }
        values += ["", "a", "ab", "abc", "abcdef", "éé", "ééé", "🎀🎀🎀", "R1", "r1"].map { AttributeValue.string($0) }
        values += ["a:b", "^a", "a..b", ",", "a=b", "+a", "-a"].map { AttributeValue.string($0) }
        values += ["https://example.com/a", "javascript:alert(1)", "no scheme", "https:", "x:y"].map {
            AttributeValue.uri($0)
        }
        values += colours.map { AttributeValue.color($0) }
        let bounds: [(Double?, Double?)] = [(nil, nil), (0, 5), (-2, nil), (nil, 2)]
        let lengths: [(Int?, Int?)] = [(nil, nil), (2, 3), (3, nil), (nil, 1)]
        var declarations: [AttributeDescription] = []
        for type in AttributeType.allCases {
            for optional in [true, false] {
                for (low, high) in bounds {
                    for (shortest, longest) in lengths {
                        for pattern in [nil, "[A-Z][0-9]*"] as [String?] {
                            for queryWord in [false, true] {
                                declarations.append(
                                    AttributeDescription(
                                        "a", type, isOptional: optional, minValue: low, maxValue: high,
                                        minLength: shortest, maxLength: longest, pattern: pattern,
                                        isQueryWord: queryWord))
                            }
                        }
                    }
                }
            }
        }
        var disagreements: [String] = []
        for declaration in declarations {
            for value in values {
                let fast = withUnsafePointer(to: declaration) { AttributeDescription.keepsEveryRule(value, $0) }
                if fast, let broken = declaration.brokenRule(value) {
                    disagreements.append("\(declaration.type) \(value.map { "\($0)" } ?? "nil"): \(broken.1)")
                }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
    }
}

