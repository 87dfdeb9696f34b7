import BowTiesKit
import Foundation
import HTTPTypes
import Hummingbird

/// An error as the API answers it: `{"error": {"code": …, "message": …}}`
/// with the message `bowties` prints after `bowties: error:` (and its
/// `hint:`), so that a script, the page and the command line say the same.
///
/// `code` is the command line's word for the kind (``CatalogError/Kind``:
/// `noSuchRecord`, `conflict`…; `validation` with Core Data's number in
/// `validationCode`; `query` for the query language), and `exitStatus` the
/// status `bowties` exits with for it.
struct APIError: Error {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    var hint: String?
    var exitStatus: Int?
    var validationCode: Int?
    /// The attribute a validation error is about (the page shows the
    /// message next to its field).
    var field: String?

    init(status: HTTPResponse.Status, code: String, message: String, hint: String? = nil, exitStatus: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.hint = hint
        self.exitStatus = exitStatus
    }

    /// The API's form of a library error, with the status `bowties` exits
    /// with for it (`CatalogError.Kind.exitStatus` for the catalog's).
    init(_ error: any Error) {
        switch error {
        case let error as APIError:
            self = error
        case let error as CatalogError:
            let status: HTTPResponse.Status =
                switch error.kind {
                case .noSuchRecord, .ambiguousKey: .notFound
                case .conflict: .conflict
                case .invalidInput: .unprocessableContent
                case .storeNotFound, .inputNotFound, .storeBusy, .storeUnavailable, .interrupted: .serviceUnavailable
                case .permissionDenied: .forbidden
                case .storeDamaged, .cannotCreateOutput, .notAStore, .storeIO, .photoUnavailable, .outputClosed:
                    .internalServerError
                }
            // The status `bowties` exits with (`CatalogError.Kind.exitStatus`);
            // a closed output is no failure there, but an answer here.
            let exit = error.kind == .outputClosed ? 74 : Int(error.kind.exitStatus)
            self.init(status: status, code: "\(error.kind)", message: error.message, hint: error.hint, exitStatus: exit)
        case let error as BowTiesKit.ValidationError:
            self.init(status: .unprocessableContent, code: "validation", message: error.description, exitStatus: 65)
            validationCode = error.code.rawValue
            field = error.attribute ?? error.errors.first?.attribute
        case let error as QueryError:
            self.init(status: .badRequest, code: "query", message: error.description, exitStatus: 64)
        default:
            self.init(status: .internalServerError, code: "storeIO", message: "\(error)", exitStatus: 74)
        }
    }

    private struct Body: Encodable {
        struct Inner: Encodable {
            var code: String
            var message: String
            var hint: String?
            var exitStatus: Int?
            var validationCode: Int?
            var field: String?
        }
        var error: Inner
    }

    var response: Response {
        let body = Body(error: .init(
            code: code, message: message, hint: hint, exitStatus: exitStatus, validationCode: validationCode,
            field: field))
        let data = (try? JSONEncoder.api.encode(body)) ?? Data(#"{"error":{"code":"internal","message":"?"}}"#.utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension JSONEncoder {
    /// Sorted keys, so that answers compare byte for byte.
    static let api: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

/// Turns every error a route throws into its JSON answer.
struct APIErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            let code = error.status == .notFound ? "notFound" : "badRequest"
            return APIError(status: error.status, code: code, message: error.body ?? error.status.reasonPhrase).response
        } catch {
            return APIError(error).response
        }
    }
}
