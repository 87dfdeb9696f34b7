import BowTiesKit
import Foundation
import HTTPTypes
import Hummingbird
import ServiceLifecycle

/// The JSON API under `/api/` (docs/openapi.yaml): the same library calls,
/// validation and messages as the command line's commands.
struct API: Sendable {
    let catalog: CatalogAccess
    let feed: ChangeFeed

    /// A page of ties is at most this long.
    static let maxLimit = 500

    func addRoutes(to router: Router<ServeContext>) {
        router.get("/api/ties") { request, _ in try await list(request) }
        router.get("/api/ties/:key") { _, context in try await show(Self.key(context)) }
        router.get("/api/ties/:key/photo") { _, context in try await photo(Self.key(context)) }
        router.get("/api/ties/:key/history") { _, context in try await history(Self.key(context)) }
        router.post("/api/ties/:key/wear") { request, context in
            try await wear(Self.key(context), request, context)
        }
        router.post("/api/ties/:key/rate") { request, context in
            try await rate(Self.key(context), request, context)
        }
        router.post("/api/ties/:key/favorite") { request, context in
            try await favorite(Self.key(context), request, context)
        }
        router.post("/api/ties/:key/tags") { request, context in
            try await tags(Self.key(context), request, context)
        }
        router.get("/api/undo") { _, _ in try await undoState() }
        router.post("/api/undo") { request, context in try await undo(request, context, redo: false) }
        router.post("/api/redo") { request, context in try await undo(request, context, redo: true) }
        router.get("/api/events") { _, _ in events() }
    }

    // MARK: Reads

    struct TiePage: Encodable {
        var ties: [TieJSON]
        var total: Int
        /// How many ties precede the page: given for an `offset` page, the
        /// first page and the last; null for a page after or before a
        /// cursor (counting them would cost what keyset paging saves).
        var offset: ExplicitNull<Int>
        var limit: Int
        /// The cursor of the page's last tie when ties follow it (`after=`).
        var next: ExplicitNull<String>
        /// The cursor of the page's first tie when ties precede it (`before=`).
        var previous: ExplicitNull<String>
        /// The rating scale, from the declaration (`maxValue`).
        var ratingMin: Double
        var ratingMax: Double
    }

    /// A page of ties: by keyset (`after=CURSOR`, `before=CURSOR`,
    /// `before=end` for the last page; the first page without either), so
    /// that any page of a million ties costs what the first does; or by
    /// `offset`, which makes the store step over every tie before it.
    func list(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        let terms = query["q"].map { String($0).split(whereSeparator: \.isWhitespace).map(String.init) } ?? []
        let sort = query["sort"].map(String.init)
        let offset = try query["offset"].map { try Self.number($0, name: "offset", default: 0, range: 0...Int.max) }
        let limit = try Self.number(query["limit"], name: "limit", default: 50, range: 1...Self.maxLimit)
        if let sort, !Self.sorts.contains(sort) {
            throw APIError(
                status: .badRequest, code: "usage",
                message: "sort \"\(sort)\" is not one of \(Self.sorts.joined(separator: ", "))", exitStatus: 64)
        }
        let after = query["after"].map(String.init)
        let before = query["before"].map(String.init)
        if [after != nil, before != nil, offset != nil].filter({ $0 }).count > 1 {
            throw APIError(
                status: .badRequest, code: "usage", message: "give one of after, before and offset", exitStatus: 64)
        }
        let page = try await catalog.reading { catalog in
            var all = terms
            if let sort, sort != "added", !terms.contains(where: { $0.hasPrefix("sort:") }) {
                all.append("sort:" + (sort == "key" ? "searchKey" : sort))
            }
            let parsed = try catalog.query(all)
            let total = try catalog.count(matching: parsed)
            let now = Date()
            func answer(_ ties: [BowTie], offset: Int?, next: PageCursor?, previous: PageCursor?) -> TiePage {
                TiePage(
                    ties: ties.map { TieJSON($0, now: now) }, total: total, offset: ExplicitNull(offset), limit: limit,
                    next: ExplicitNull(next?.text), previous: ExplicitNull(previous?.text),
                    ratingMin: BowTieModel.ratingScale.lowerBound, ratingMax: BowTieModel.ratingScale.upperBound)
            }
            if let offset {
                let ties = try catalog.bowTies(matching: parsed, offset: offset, limit: limit)
                return answer(ties, offset: offset, next: nil, previous: nil)
            }
            let start: PageStart =
                switch (after, before) {
                case (let text?, _): .after(try Self.cursor(text, name: "after", fitting: parsed))
                case (_, "end"?): .last
                case (_, let text?): .before(try Self.cursor(text, name: "before", fitting: parsed))
                default: .first
                }
            let page = try catalog.page(matching: parsed, from: start, limit: limit)
            let known: Int? = page.isFirst ? 0 : page.isLast ? total - page.ties.count : nil
            return answer(page.ties, offset: known, next: page.next, previous: page.previous)
        }
        return try Self.json(page)
    }

    /// The cursor `text` names, made for the order of `query`.
    static func cursor(_ text: String, name: String, fitting query: Query) throws -> PageCursor {
        guard let cursor = PageCursor(text: text) else {
            throw APIError(
                status: .badRequest, code: "usage",
                message: "\(name) takes a cursor from a page's next or previous", exitStatus: 64)
        }
        guard cursor.fits(query) else {
            throw APIError(
                status: .badRequest, code: "usage",
                message: "the \(name) cursor belongs to another order: start again from the first page", exitStatus: 64)
        }
        return cursor
    }

    /// The orders the list offers, as `bowties list --sort` names them.
    static let sorts = ["added", "key", "name", "rating", "timesWorn", "lastWorn"]

    func show(_ key: String) async throws -> Response {
        try Self.json(try await catalog.reading { catalog in TieJSON(try catalog.bowTie(matching: key), now: Date()) })
    }

    func photo(_ key: String) async throws -> Response {
        let data = try await catalog.reading { catalog -> Data? in
            let tie = try catalog.bowTie(matching: key)
            switch try catalog.readPhoto(of: tie) {
            case nil: return nil
            case .success(let data)?: return data
            case .failure(let problem)?: throw CatalogError(.photoUnavailable, "\(problem)")
            }
        }
        guard let data else {
            throw APIError(status: .notFound, code: "noPhoto", message: "\(key) has no photo", exitStatus: 1)
        }
        var headers = HTTPFields()
        headers[.contentType] = ImageType.of(data)
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    struct HistoryJSON: Encodable {
        struct Entry: Encodable {
            var date: String
            var words: String
            var note: String?
        }
        var key: String
        var wears: [Entry]
        var baselineTimesWorn: Int64
    }

    func history(_ key: String) async throws -> Response {
        try Self.json(
            try await catalog.reading { catalog in
                let history = try catalog.history(key)
                let now = Date()
                return HistoryJSON(
                    key: TieJSON.key(of: history.tie),
                    wears: history.wears.reversed().map {
                        .init(date: ISO8601.string(from: $0.date), words: RelativeDate.words(for: $0.date, now: now), note: $0.note)
                    },
                    baselineTimesWorn: history.baselineTimesWorn)
            })
    }

    // MARK: Changes

    struct WearBody: Decodable { var note: String? }
    struct RateBody: Decodable { var rating: Double }
    struct FavoriteBody: Decodable { var favorite: Bool }
    struct TagsBody: Decodable {
        var add: [String]?
        var remove: [String]?
    }

    func wear(_ key: String, _ request: Request, _ context: ServeContext) async throws -> Response {
        let body = try await Self.decode(WearBody.self, request, context, emptyAllowed: true) ?? WearBody()
        return try await change(.pointWrite) { try $0.wear(key, at: Date(), note: body.note) }
    }

    func rate(_ key: String, _ request: Request, _ context: ServeContext) async throws -> Response {
        guard let body = try await Self.decode(RateBody.self, request, context) else {
            throw Self.badBody("{\"rating\": NUMBER}")
        }
        return try await change(.pointWrite) { try $0.rate(key, body.rating) }
    }

    func favorite(_ key: String, _ request: Request, _ context: ServeContext) async throws -> Response {
        guard let body = try await Self.decode(FavoriteBody.self, request, context) else {
            throw Self.badBody("{\"favorite\": true or false}")
        }
        return try await change(.pointWrite) { try $0.setFavorite(key, body.favorite) }
    }

    func tags(_ key: String, _ request: Request, _ context: ServeContext) async throws -> Response {
        guard let body = try await Self.decode(TagsBody.self, request, context) else {
            throw Self.badBody("{\"add\": [NAMES], \"remove\": [NAMES]}")
        }
        return try await change { catalog in
            var tie = try catalog.bowTie(matching: key)
            if let add = body.add, !add.isEmpty { tie = try catalog.tag(key, with: add) }
            if let remove = body.remove, !remove.isEmpty { tie = try catalog.untag(key, removing: remove) }
            return tie
        }
    }

    /// `body`'s change, in a catalog opened `mode` (``CatalogAccess/writing(_:_:)``).
    private func change(_ mode: Catalog.OpenMode = .mustExist, _ body: @escaping @Sendable (Catalog) throws -> BowTie)
        async throws -> Response
    {
        // Open pages hear of it from the feed, which sees this commit as
        // it sees any other process's.
        try Self.json(try await catalog.writing(mode) { catalog in TieJSON(try body(catalog), now: Date()) })
    }

    struct UndoState: Encodable {
        /// The action `undo` would revert, by its title, or nil.
        var undo: String?
        /// The action `redo` would apply again.
        var redo: String?
    }

    struct UndoAnswer: Encodable {
        var action: String
        var undone: Bool
    }

    func undoState() async throws -> Response {
        try Self.json(
            try await catalog.reading { catalog in
                let actions = try catalog.undoHistory(limit: 50)
                let undone = actions.prefix { $0.isUndone }
                return UndoState(undo: actions.first { !$0.isUndone }?.title, redo: undone.last?.title)
            })
    }

    func undo(_ request: Request, _ context: ServeContext, redo: Bool) async throws -> Response {
        _ = try await Self.decode(WearBody.self, request, context, emptyAllowed: true)
        let report = try await catalog.writing { catalog in redo ? try catalog.redo() : try catalog.undo() }
        return try Self.json(UndoAnswer(action: report.action.title, undone: !redo))
    }

    // MARK: Events

    /// `text/event-stream`: `event: changed` with a number each time the
    /// catalog changes, a comment every 5 s (so that a closed page is
    /// noticed); it ends when the server stops.
    func events() -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        let feed = feed
        return Response(
            status: .ok, headers: headers,
            body: .init { writer in
                try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
                let (id, stream) = feed.subscribe()
                let heartbeat = Task {
                    while !Task.isCancelled {
                        try await Task.sleep(for: .seconds(5))
                        feed.ping(id)
                    }
                }
                defer { heartbeat.cancel() }
                try await withGracefulShutdownHandler {
                    for await version in stream {
                        let text = version < 0 ? ": ping\n\n" : "event: changed\ndata: \(version)\n\n"
                        try await writer.write(ByteBuffer(string: text))
                    }
                } onGracefulShutdown: {
                    feed.finish(id)
                }
                try await writer.finish(nil)
            })
    }

    // MARK: Helpers

    static func json(_ value: some Encodable) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder.api.encode(value))))
    }

    static func decode<T: Decodable>(_ type: T.Type, _ request: Request, _ context: ServeContext, emptyAllowed: Bool = false)
        async throws -> T?
    {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: context.maxUploadSize)
        } catch {
            throw APIError(
                status: .contentTooLarge, code: "tooLarge",
                message: "a request body may hold at most \(context.maxUploadSize) bytes")
        }
        if buffer.readableBytes == 0 { return nil }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch {
            if emptyAllowed { throw badBody("a JSON object") }
            return nil
        }
    }

    /// The `{key}` of the path, percent-decoded.
    static func key(_ context: ServeContext) throws -> String {
        let raw = try context.parameters.require("key")
        return raw.removingPercentEncoding ?? raw
    }

    static func badBody(_ expected: String) -> APIError {
        APIError(status: .badRequest, code: "usage", message: "the request body must be \(expected)", exitStatus: 64)
    }

    static func number(_ text: Substring?, name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw APIError(
                status: .badRequest, code: "usage",
                message: "\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound)", exitStatus: 64)
        }
        return number
    }
}

/// The type of a photo's bytes, from their first bytes.
enum ImageType {
    static func of(_ data: Data) -> String {
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if data.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if data.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        return "application/octet-stream"
    }
}
