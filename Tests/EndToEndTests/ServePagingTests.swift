import Foundation
import Testing

/// `bowties serve`'s keyset paging (`/api/ties?after=…`, `before=…`,
/// `before=end`): walked page by page, forward and back, in every order
/// the page offers, it gives exactly the ties `bowties list` gives, in the
/// same order; equal names, missing keys and missing dates included.
@Suite("bowties serve: keyset paging", .serialized)
struct ServePagingTests {
    /// 23 ties whose orders have ties and gaps: names equal but for case,
    /// ratings and dates repeated, some without a search key or a last wear.
    static func pagingTies() -> String {
        let names = ["Alpha", "alpha", "Beta", "BETA", "gamma"]
        return (1...23).map { index in
            var fields = [
                #""name": "\#(names[index % names.count])""#,
                #""rating": \#(Double(index % 4) + (index % 2 == 0 ? 0.5 : 0))"#,
            ]
            if index % 6 != 0 { fields.append(#""searchKey": "K\#(String(format: "%02d", 24 - index))""#) }
            if index % 4 == 0 {
                fields.append(#""timesWorn": 0"#)
            } else {
                fields.append(#""timesWorn": \#(1 + index % 3)"#)
                fields.append(#""lastWorn": "2020-01-0\#(1 + index % 5)T00:00:00Z""#)
            }
            return "{" + fields.joined(separator: ", ") + "}"
        }.joined(separator: "\n") + "\n"
    }

    /// Imports ``pagingTies()`` into the catalog `environment` names.
    static func importPagingTies(_ workspace: CatalogWorkspace, environment: [String: String?] = [:]) throws {
        let file = try workspace.writeInput(pagingTies(), to: "paging.jsonl")
        let result = try workspace.run(arguments: ["import", file.path], environment: environment)
        try #require(result.status == 0, "\(result)")
    }

    struct Page {
        var ids: [String]
        var next: String?
        var previous: String?
        var offset: Int?
        var total: Int
    }

    static func page(_ server: ServedCatalog, _ query: String) throws -> Page {
        let answer = try server.request("GET", "/api/ties?" + query)
        try #require(answer.status == 200, "\(query): \(answer)")
        let json = try #require(try answer.json() as? [String: Any], "\(answer)")
        let ties = try #require(json["ties"] as? [[String: Any]], "\(answer)")
        return Page(
            ids: ties.compactMap { $0["id"] as? String }, next: json["next"] as? String,
            previous: json["previous"] as? String, offset: json["offset"] as? Int, total: json["total"] as? Int ?? -1)
    }

    /// Walks every order forward (first page, then `after=next`) and back
    /// (`before=end`, then `before=previous`) four ties at a time, and
    /// compares with `bowties list sort:… --json` on the same catalog.
    static func walkEveryOrder(_ server: ServedCatalog, environment: [String: String?] = [:]) throws {
        let workspace = server.workspace
        for (sort, term) in [
            ("added", nil), ("key", "sort:searchKey"), ("name", "sort:name"), ("rating", "sort:rating"),
            ("timesWorn", "sort:timesWorn"), ("lastWorn", "sort:lastWorn"),
        ] {
            let listed = try workspace.run(
                arguments: ["list", "--json"] + (term.map { [$0] } ?? []), environment: environment)
            let expected = try #require(try listed.json() as? [[String: Any]], "\(listed)").compactMap {
                $0["id"] as? String
            }
            try #require(expected.count == 30, "\(sort): \(expected.count) ties listed")
            let base = "sort=\(sort)&limit=4"

            var forward = try page(server, base)
            #expect(forward.offset == 0 && forward.previous == nil && forward.total == 30, "\(sort): first page")
            var walked = forward.ids
            var requests = 1
            while let next = forward.next, requests < 20 {
                forward = try page(server, base + "&after=" + next)
                #expect(forward.previous != nil, "\(sort): a page after the first has a previous")
                walked += forward.ids
                requests += 1
            }
            #expect(walked == expected, "\(sort) forward: \(walked) against \(expected)")
            #expect(forward.offset == 30 - forward.ids.count, "\(sort): the last page knows its offset")

            var backward = try page(server, base + "&before=end")
            #expect(backward.next == nil && backward.offset == 26, "\(sort): last page")
            var collected = backward.ids
            requests = 1
            while let previous = backward.previous, requests < 20 {
                backward = try page(server, base + "&before=" + previous)
                // The page before the first four is the first page (four
                // ties, not two): keep the ties not already collected.
                collected = backward.ids.filter { !collected.contains($0) } + collected
                requests += 1
            }
            #expect(backward.offset == 0 && backward.ids.count == 4, "\(sort): the walk back ends on a full first page")
            #expect(collected == expected, "\(sort) back: \(collected) against \(expected)")
        }

        let first = try page(server, "sort=name&limit=4")
        let cursor = try #require(first.next)
        let otherOrder = try server.request("GET", "/api/ties?sort=rating&limit=4&after=" + cursor)
        #expect(
            otherOrder.status == 400 && otherOrder.errorMessage?.contains("belongs to another order") == true,
            "\(otherOrder)")
        let garbage = try server.request("GET", "/api/ties?after=not-a-cursor")
        #expect(
            garbage.status == 400 && garbage.errorMessage == "after takes a cursor from a page's next or previous",
            "\(garbage)")
        let both = try server.request("GET", "/api/ties?offset=4&after=" + cursor)
        #expect(both.status == 400 && both.errorMessage == "give one of after, before and offset", "\(both)")
    }

    @Test("on SQLite, every order walked forward and back is `bowties list`'s order")
    func walksEveryOrderOnSQLite() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try Self.importPagingTies(workspace)
        let server = try ServedCatalog(workspace)
        try Self.walkEveryOrder(server)
    }
}
