import Foundation
internal import CLibPQ

/// One libpq connection (`PGconn`), the only Swift that calls libpq with
/// ``PostgreSQLResult``: the PostgreSQL store's sessions run their SQL
/// through it, one statement at a time.
///
/// libpq is loaded by the first call (CLibraryLoader), so a command on
/// an SQLite catalog never maps it; a machine without it ends a command
/// on a PostgreSQL catalog with the loader's message and status 69.
///
/// Not `Sendable` for its statements: a connection belongs to the one
/// thread that runs the command's transaction. ``cancel()`` is the
/// exception: libpq's `PQcancel` may be called from any thread (a signal
/// handler's queue), over its own socket.
final class PostgreSQLConnection: @unchecked Sendable {
    /// `PGconn *`; never nil once made. (Internal for the extensions that
    /// call libpq beside this file: `+Notifications`.)
    let handle: OpaquePointer
    /// `PGcancel *`, made once connected: what ``cancel()`` sends.
    private let cancelHandle: OpaquePointer?
    /// The address, password masked: how messages name the catalog.
    let description: String
    /// Statement texts as the session translated them, by the text the
    /// layers above wrote (``PostgreSQLSession/translated(_:)``).
    var translations: [String: String] = [:]
    /// What the server said outside any statement's result (libpq's
    /// notice processor), kept here instead of printed on standard error.
    private let notices = Notices()

    /// Connects to the database at `address`, as libpq reads it (the URL
    /// as given; what it leaves out from `PG*` variables and `~/.pgpass`).
    ///
    /// - Throws: ``CatalogError`` `.storeUnavailable` (the server cannot
    ///   be reached, the database does not exist), `.permissionDenied`
    ///   (authentication failed, or no password was given for a server
    ///   that asks one). The message names the host, port and database
    ///   and gives libpq's reason, never the password.
    init(address: String) throws {
        description = StoreAddress.masked(address)
        guard let connection = PQconnectdb(address) else {
            throw CatalogError(.storeUnavailable, "cannot connect to the catalog at \(description): out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let error = Self.connectionError(connection, address: address, description: description)
            PQfinish(connection)
            throw error
        }
        handle = connection
        cancelHandle = PQgetCancel(connection)
        // libpq's own processor prints what the server says between
        // statements on standard error: "FATAL:  terminating connection due
        // to administrator command" before the command's own error. Kept
        // for that error instead (``lastFatalNotice``).
        PQsetNoticeProcessor(
            connection,
            { context, message in
                guard let context, let message else { return }
                Unmanaged<Notices>.fromOpaque(context).takeUnretainedValue().received(String(cString: message))
            }, Unmanaged.passUnretained(notices).toOpaque())
        // Every statement's text is UTF-8; the server's notices
        // ("…does not exist, skipping") are not the user's business.
        // Sent with the first statement, in its round trip.
        sendDeferred("SET client_encoding = 'UTF8'")
        sendDeferred("SET client_min_messages = warning")
        // No JIT compilation (PostgreSQL 11 and later; on by default where
        // the server has LLVM, as Debian's has): a statement whose
        // estimated cost passes `jit_above_cost` (100,000) is compiled
        // before its first row, and `export`'s, with its per-row
        // subqueries for tags and wears, passes it from about 670,000
        // ties on (`list`'s from about 1.5 million). At 1,000,000 ties
        // `export`'s first row came 0.1 to 0.2 s later for it
        // (bench/results/postgres.md, "Session 13"); bowties' statements
        // stream rows or touch a few, where compiling never pays.
        if PQserverVersion(connection) >= 11_00_00 { sendDeferred("SET jit = off") }
    }

    deinit {
        if let cancelHandle { PQfreeCancel(cancelHandle) }
        PQfinish(handle)
    }

    /// Asks the server to stop the statement running on this connection:
    /// it fails with SQLSTATE 57014 (`query_canceled`), and its
    /// transaction can only roll back.
    func cancel() {
        guard let cancelHandle else { return }
        var buffer = [CChar](repeating: 0, count: 256)
        _ = PQcancel(cancelHandle, &buffer, Int32(buffer.count))
    }

    /// Runs `sql` (one statement, `$1`… placeholders) with `parameters`
    /// (``StoreValue``s: text for numbers and text, binary `bytea` for
    /// blobs; the server infers the other types from where they stand).
    ///
    /// - Throws: ``PostgreSQLError`` with the server's SQLSTATE.
    func execute(_ sql: String, _ parameters: [StoreValue] = []) throws -> PostgreSQLResult {
        collectCopy()
        if deferred > 0 { return try executeAfterDeferred(sql, parameters) }
        let result = Self.withParameters(parameters) { count, types, values, lengths, formats in
            PQexecParams(handle, sql, count, types, values, lengths, formats, 0)
        }
        return try check(result)
    }

    // MARK: - Statements sent ahead

    /// How many statements ``sendDeferred(_:_:flush:)`` sent whose answers
    /// are still to be read.
    private var deferred = 0

    /// Sends `sql` (one statement whose rows, if any, no one reads: `SET`,
    /// `BEGIN`, a read's `ROLLBACK`) without waiting for its answer,
    /// which is read with the next statement's (libpq's pipeline mode).
    ///
    /// On loopback a round trip costs tenths of a millisecond, but each
    /// one is two switches between the client's and the server's
    /// processes, and on a busy machine each switch waits for a core:
    /// `show` made 8 round trips after authenticating, where `psql -c`
    /// makes 1 (bench/results/postgres.md). The session settings and
    /// `BEGIN` go with the statement that follows them; a read's
    /// `ROLLBACK` is sent at once (`flush`: the server ends the snapshot
    /// now, not when the next statement comes, which `bowties serve` may
    /// wait minutes for) and its answer is read with the next one's.
    ///
    /// A deferred statement that fails makes the server skip what
    /// follows it until the sync: the statement sent next fails with the
    /// deferred one's error (``executeAfterDeferred(_:_:)``).
    func sendDeferred(_ sql: String, _ parameters: [StoreValue] = [], flush: Bool = false) {
        collectCopy()
        if deferred == 0 && PQenterPipelineMode(handle) != 1 {
            // Not idle (rows of a stream left unread): at once, as
            // before, discarding them.
            PQclear(
                Self.withParameters(parameters) { count, types, values, lengths, formats in
                    PQexecParams(handle, sql, count, types, values, lengths, formats, 0)
                })
            return
        }
        let sent = Self.withParameters(parameters) { count, types, values, lengths, formats in
            PQsendQueryParams(handle, sql, count, types, values, lengths, formats, 0)
        }
        // 0: the connection is gone, and the next statement says so.
        guard sent == 1 else { return }
        deferred += 1
        if flush { _ = PQflush(handle) }
    }

    /// Sends `sql` after the deferred statements, with one sync for all,
    /// reads every answer, and leaves pipeline mode.
    private func executeAfterDeferred(_ sql: String, _ parameters: [StoreValue]) throws -> PostgreSQLResult {
        let sent = Self.withParameters(parameters) { count, types, values, lengths, formats in
            PQsendQueryParams(handle, sql, count, types, values, lengths, formats, 0)
        }
        let result = try readDeferred(then: sent == 1)
        guard sent == 1 else { throw PostgreSQLError(connectionMessage: lastMessage) }
        return try check(result)
    }

    /// Reads the answers of the deferred statements before another kind
    /// of exchange (a stream of rows, `COPY`, waiting for notifications),
    /// which pipeline mode does not allow.
    func settleDeferred() throws {
        collectCopy()
        guard deferred > 0 else { return }
        _ = try readDeferred(then: false)
    }

    /// Sends a sync, reads the answers of the deferred statements (and,
    /// when `then`, the last result of the statement sent after them,
    /// which it returns), and leaves pipeline mode.
    ///
    /// - Throws: The first deferred statement's error.
    private func readDeferred(then: Bool) throws -> OpaquePointer? {
        let count = deferred
        deferred = 0
        defer { _ = PQexitPipelineMode(handle) }
        guard PQpipelineSync(handle) == 1 else {
            let error = PostgreSQLError(connectionMessage: lastMessage)
            while let rest = PQgetResult(handle) { PQclear(rest) }
            throw error
        }
        var firstError: PostgreSQLError?
        for _ in 0..<count {
            // Each statement's results end with a null one.
            while let result = PQgetResult(handle) {
                let status = PQresultStatus(result)
                if firstError == nil && status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK {
                    firstError = PostgreSQLError(result: result)
                }
                PQclear(result)
            }
        }
        var last: OpaquePointer?
        if then {
            while let result = PQgetResult(handle) {
                if let last { PQclear(last) }
                last = result
            }
        }
        // The sync's own result; the connection is idle after it.
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        if let firstError {
            if let last { PQclear(last) }
            throw firstError
        }
        return last
    }

    /// Sends `sql` and reads its rows one at a time (libpq's single-row
    /// mode): memory stays flat however many there are. Read them with
    /// ``nextRow()`` until it returns nil.
    func sendStreaming(_ sql: String, _ parameters: [StoreValue]) throws {
        try settleDeferred()
        let sent = Self.withParameters(parameters) { count, types, values, lengths, formats in
            PQsendQueryParams(handle, sql, count, types, values, lengths, formats, 0)
        }
        guard sent == 1 else { throw PostgreSQLError(connectionMessage: lastMessage) }
        _ = PQsetSingleRowMode(handle)
    }

    /// The next row of the statement ``sendStreaming(_:_:)`` sent, as a
    /// result of one row; nil after the last (the statement is done).
    func nextRow() throws -> PostgreSQLResult? {
        while let result = PQgetResult(handle) {
            switch PQresultStatus(result) {
            case PGRES_SINGLE_TUPLE:
                return PostgreSQLResult(result)
            case PGRES_TUPLES_OK, PGRES_COMMAND_OK:
                PQclear(result)
            default:
                let error = PostgreSQLError(result: result)
                PQclear(result)
                while let rest = PQgetResult(handle) { PQclear(rest) }
                throw error
            }
        }
        return nil
    }

    /// The reason the server gave when it ended the connection
    /// (`FATAL:  terminating connection due to administrator command`),
    /// without its severity; nil when it gave none.
    var lastFatalNotice: String? { notices.lastFatal }

    /// What libpq's notice processor hands over, kept for the one
    /// connection that owns it (and called on the thread running its
    /// statement).
    private final class Notices {
        private(set) var lastFatal: String?

        func received(_ text: String) {
            let line = text.split(separator: "\n").first.map(String.init) ?? text
            for severity in ["FATAL:  ", "PANIC:  "] where line.hasPrefix(severity) {
                lastFatal = String(line.dropFirst(severity.count))
            }
        }
    }

    /// Runs `sql`, a `COPY … FROM STDIN`, and sends `data` as its whole
    /// input, in the format the statement names (`PQputCopyData` in
    /// pieces of 64 KiB, then `PQputCopyEnd`).
    ///
    /// The server reads the rows as they arrive and answers once, at the
    /// end: a row that breaks a constraint fails the whole statement
    /// (SQLSTATE 23…), and nothing it copied stays.
    ///
    /// - Returns: The result, whose ``PostgreSQLResult/changedCount`` is
    ///   the number of rows copied.
    /// - Throws: ``PostgreSQLError`` with the server's SQLSTATE (57014
    ///   when ``cancel()`` stopped it).
    func copyIn(_ sql: String, _ data: UnsafeRawBufferPointer) throws -> PostgreSQLResult {
        try startCopyIn(sql, data)
        return try finishCopyIn()
    }

    /// ``copyIn(_:_:)`` without waiting for the answer: the server is
    /// still writing the rows when this returns, and the client can read
    /// and encode the next batch meanwhile (on two cores, side by side).
    /// ``finishCopyIn()`` reads the answer; any other statement on the
    /// connection reads it first and keeps it for ``finishCopyIn()``.
    func startCopyIn(_ sql: String, _ data: UnsafeRawBufferPointer) throws {
        try settleDeferred()
        guard let started = PQexec(handle, sql) else { throw PostgreSQLError(connectionMessage: lastMessage) }
        guard PQresultStatus(started) == PGRES_COPY_IN else {
            // Refused before any row (no such table, no privilege).
            let result = try check(started)
            throw PostgreSQLError(connectionMessage: "the server did not start the COPY (\(result.rowCount) rows)")
        }
        PQclear(started)
        var offset = 0
        while offset < data.count, let base = data.baseAddress {
            let piece = min(1 << 16, data.count - offset)
            // 1 sent (or queued); -1 the connection failed, which the
            // result below reports. (0 is for non-blocking connections.)
            guard PQputCopyData(handle, (base + offset).assumingMemoryBound(to: CChar.self), Int32(piece)) == 1
            else { break }
            offset += piece
        }
        guard PQputCopyEnd(handle, nil) == 1 else { throw PostgreSQLError(connectionMessage: lastMessage) }
        copyInFlight = true
    }

    /// The answer to the `COPY` ``startCopyIn(_:_:)`` sent.
    func finishCopyIn() throws -> PostgreSQLResult {
        collectCopy()
        let outcome = copyOutcome
        copyOutcome = nil
        guard let outcome else { throw PostgreSQLError(connectionMessage: "no COPY was sent") }
        return try outcome.get()
    }

    /// Whether a `COPY`'s answer is still to be read.
    private var copyInFlight = false
    /// The answer ``collectCopy()`` read, for ``finishCopyIn()``.
    private var copyOutcome: Result<PostgreSQLResult, any Error>?

    /// Reads the answer of a `COPY` sent without waiting, before anything
    /// else is sent.
    private func collectCopy() {
        guard copyInFlight else { return }
        copyInFlight = false
        let result = PQgetResult(handle)
        // The statement's result is followed by a null one: read until
        // it, so that the connection is ready for the next statement.
        while let rest = PQgetResult(handle) { PQclear(rest) }
        copyOutcome = Result { try check(result) }
    }

    /// The connection's last error message, libpq's words.
    var lastMessage: String {
        PQerrorMessage(handle).map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }

    private func check(_ result: OpaquePointer?) throws -> PostgreSQLResult {
        guard let result else { throw PostgreSQLError(connectionMessage: lastMessage) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return PostgreSQLResult(result)
        default:
            let error = PostgreSQLError(result: result)
            PQclear(result)
            throw error
        }
    }

    /// Lays `parameters` out as libpq takes them, for `body`'s call.
    private static func withParameters<T>(
        _ parameters: [StoreValue],
        _ body: (Int32, UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
            UnsafePointer<Int32>?) -> T
    ) -> T {
        var types: [Oid] = []
        var buffers: [[UInt8]?] = []
        var formats: [Int32] = []
        types.reserveCapacity(parameters.count)
        for value in parameters {
            switch value {
            case .null:
                types.append(0)
                buffers.append(nil)
                formats.append(0)
            case .integer(let number):
                types.append(0)
                buffers.append(Array(String(number).utf8) + [0])
                formats.append(0)
            case .real(let number):
                types.append(0)
                buffers.append(Array(AttributeValue.format(number).utf8) + [0])
                formats.append(0)
            case .text(let text):
                types.append(0)
                buffers.append(Array(text.utf8) + [0])
                formats.append(0)
            case .blob(let data):
                types.append(byteaOID)
                buffers.append([UInt8](data))
                formats.append(1)
            }
        }
        let lengths = buffers.map { Int32($0?.count ?? 0) }
        // Pointers into the buffers, valid for the call.
        var pointers: [UnsafePointer<CChar>?] = []
        var retained: [UnsafeMutablePointer<UInt8>] = []
        for buffer in buffers {
            guard let buffer else {
                pointers.append(nil)
                continue
            }
            let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: max(buffer.count, 1))
            copy.initialize(from: buffer, count: buffer.count)
            retained.append(copy)
            pointers.append(UnsafeRawPointer(copy).assumingMemoryBound(to: CChar.self))
        }
        defer { for copy in retained { copy.deallocate() } }
        return body(Int32(parameters.count), types, pointers, lengths, formats)
    }

    // MARK: - Connection failures

    /// What a failed connection means for the user: located (host, port,
    /// database), libpq's reason (which never holds the password; any
    /// text equal to it is masked all the same), and the status.
    private static func connectionError(_ connection: OpaquePointer, address: String, description: String)
        -> CatalogError
    {
        var reason =
            PQerrorMessage(connection).map { String(cString: $0) }?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown reason"
        for secret in secrets(in: address) where !secret.isEmpty {
            reason = reason.replacingOccurrences(of: secret, with: StoreAddress.mask)
        }
        let lines = reason.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        var first = lines.first ?? reason
        // libpq's "connection to server at "h" (addr), port 5432 failed: FATAL:  …":
        // the place is said once, ours.
        if let range = first.range(of: " failed: ") { first = String(first[range.upperBound...]) }
        first = first.replacingOccurrences(of: "FATAL:  ", with: "")
        let place = Self.place(connection)
        let message = "cannot connect to the catalog at \(description) (\(place)): \(first)"
        let lower = reason.lowercased()
        if PQconnectionNeedsPassword(connection) == 1 {
            return CatalogError(
                .permissionDenied, message,
                hint: "The server asks for a password: put it in $PGPASSWORD or ~/.pgpass "
                    + "(not in --store, which other users see with ps).")
        }
        if lower.contains("authentication failed") || lower.contains("no pg_hba.conf entry")
            || (lower.contains("role \"") && lower.contains("does not exist"))
            || lower.contains("permission denied")
        {
            return CatalogError(
                .permissionDenied, message,
                hint: "Check the user name and password ($PGPASSWORD, ~/.pgpass), or ask the database's owner for access.")
        }
        // TLS: the client refuses the server (its certificate cannot be
        // verified, or names another host), or the server offers none.
        // No password or role would help: the service is unavailable
        // (69) until the address or the trusted CA is corrected.
        if lower.contains("root certificate file") || lower.contains("certificate verify failed")
            || lower.contains("does not match host name") || lower.contains("server does not support ssl")
            || lower.contains("ssl error")
        {
            return CatalogError(
                .storeUnavailable, message,
                hint: "The server's identity could not be checked over TLS: give its CA's certificate "
                    + "(sslrootcert= in the address, or $PGSSLROOTCERT) and the host name its certificate names; "
                    + "sslmode=require encrypts without checking.")
        }
        if lower.contains("database \"") && lower.contains("does not exist") {
            return CatalogError(
                .storeUnavailable, message,
                hint: "Create it first (createdb, or CREATE DATABASE as its owner); bowties creates the tables, not the database.")
        }
        return CatalogError(
            .storeUnavailable, message,
            hint: lines.dropFirst().first.map { String($0) }
                ?? "Check the host and port, and that the server is running.")
    }

    /// `database DB on HOST port PORT as USER`, from what libpq used.
    private static func place(_ connection: OpaquePointer) -> String {
        func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
            pointer.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        var words = ["database \(text(PQdb(connection)) ?? "?")"]
        if let host = text(PQhost(connection)) { words.append("on \(host)") }
        if let port = text(PQport(connection)) { words.append("port \(port)") }
        if let user = text(PQuser(connection)) { words.append("as \(user)") }
        return words.joined(separator: " ")
    }

    /// The secrets `address` holds (`password`, `sslpassword`), as libpq
    /// reads them.
    private static func secrets(in address: String) -> [String] {
        guard let options = PQconninfoParse(address, nil) else { return [] }
        defer { PQconninfoFree(options) }
        var secrets: [String] = []
        var option = options
        while let keyword = option.pointee.keyword {
            if StoreAddress.secretParameters.contains(String(cString: keyword)), let value = option.pointee.val {
                secrets.append(String(cString: value))
            }
            option += 1
        }
        return secrets
    }
}

/// The type OID of `bytea` (`pg_type`), for blobs sent in binary.
let byteaOID: Oid = 17

/// An error the server (or libpq) reported for a statement: its SQLSTATE
/// (`42501` insufficient privilege, `40001` serialization failure…) and
/// message. ``PostgreSQLStore/mapErrors(_:)`` turns it into a
/// ``CatalogError``.
struct PostgreSQLError: Error, CustomStringConvertible {
    /// Five characters; empty when libpq itself failed (a lost connection).
    var sqlState: String
    var message: String
    var detail: String?

    init(result: OpaquePointer) {
        func field(_ code: UInt8) -> String? {
            PQresultErrorField(result, Int32(code)).map { String(cString: $0) }
        }
        sqlState = field(UInt8(ascii: "C")) ?? ""
        message =
            field(UInt8(ascii: "M"))
            ?? PQresultErrorMessage(result).map { String(cString: $0) }?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown error"
        detail = field(UInt8(ascii: "D"))
    }

    init(connectionMessage: String) {
        sqlState = ""
        message = connectionMessage.isEmpty ? "the connection to the server was lost" : connectionMessage
    }

    var description: String { message }
}

/// A statement's result (`PGresult *`), freed with it. Values are read as
/// text and decoded by each column's type OID into ``StoreValue``s as
/// SQLite's would be: booleans as integers 0 and 1, numbers as integers
/// or reals, `bytea` as blobs.
final class PostgreSQLResult {
    private let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }
    deinit { PQclear(handle) }

    var rowCount: Int { Int(PQntuples(handle)) }
    var columnCount: Int { Int(PQnfields(handle)) }

    /// How many rows an `INSERT`, `UPDATE` or `DELETE` changed.
    var changedCount: Int {
        PQcmdTuples(handle).flatMap { Int(String(cString: $0)) } ?? 0
    }

    var columnNames: [String] {
        (0..<PQnfields(handle)).map { PQfname(handle, $0).map { String(cString: $0) } ?? "" }
    }

    func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(handle, Int32(row), Int32(column)) == 1 }

    /// The value's text bytes, in place (valid while the result lives).
    func bytes(_ row: Int, _ column: Int) -> UnsafeBufferPointer<UInt8>? {
        guard !isNull(row, column), let value = PQgetvalue(handle, Int32(row), Int32(column)) else { return nil }
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        return UnsafeBufferPointer(start: UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self), count: length)
    }

    func type(_ column: Int) -> Oid { PQftype(handle, Int32(column)) }

    func value(_ row: Int, _ column: Int) -> StoreValue {
        guard let bytes = bytes(row, column) else { return .null }
        let type = type(column)
        // A photo's half a megabyte of hex is not made a string first.
        if type == byteaOID { return .blob(Self.unescapeBytea(bytes)) }
        let text = String(decoding: bytes, as: UTF8.self)
        switch type {
        case 16: return .integer(text == "t" ? 1 : 0)
        case 20, 21, 23, 26: return Int64(text).map(StoreValue.integer) ?? .text(text)
        case 700, 701, 1700: return Double(text).map(StoreValue.real) ?? .text(text)
        case byteaOID: return .blob(Self.unescapeBytea(bytes))
        default: return .text(text)
        }
    }

    func row(_ row: Int, columns: [String]) -> StoreRow {
        StoreRow(values: (0..<columnCount).map { value(row, $0) }, columns: columns)
    }

    /// `bytea`'s hex output (`\x0a1b…`) as bytes.
    static func unescapeBytea(_ bytes: UnsafeBufferPointer<UInt8>) -> Data {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x") else {
            return Data(bytes)
        }
        func nibble(_ byte: UInt8) -> UInt8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            default: byte &- UInt8(ascii: "A") &+ 10
            }
        }
        // Into the buffer in place: `Data.append` of one byte at a time
        // was most of `show`'s CPU for a 240 KB photo (perf).
        let count = (bytes.count - 2) / 2
        var data = Data(count: count)
        data.withUnsafeMutableBytes { (output: UnsafeMutableRawBufferPointer) in
            for index in 0..<count {
                output[index] = nibble(bytes[2 + 2 * index]) << 4 | nibble(bytes[3 + 2 * index])
            }
        }
        return data
    }
}
