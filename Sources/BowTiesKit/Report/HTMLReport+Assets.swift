/// The report's fixed style sheet and script. Both are inline, and the
/// page's Content-Security-Policy names them by hash
/// (``HTMLReport/policy(css:script:)``): change them freely, the hash
/// follows.
extension HTMLReport {
    /// System fonts only: the page loads nothing. Light and dark.
    static let css = """
        :root{color-scheme:light dark;--bg:#f5f4f0;--fg:#1d1d1f;--muted:#6b6b70;--card:#fff;--line:#e2dfd8;\
        --accent:#c0392b;--star:#e3a400;--star-off:#d6d3cc}
        @media (prefers-color-scheme:dark){:root{--bg:#16161a;--fg:#f2f2f4;--muted:#a3a3aa;--card:#222228;\
        --line:#35353c;--accent:#ff6b5e;--star-off:#4a4a52}}
        *{box-sizing:border-box}
        body{margin:0;background:var(--bg);color:var(--fg);\
        font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Helvetica Neue",Arial,sans-serif}
        header.top{padding:32px 40px 4px}
        h1{font-size:30px;margin:0 0 4px;letter-spacing:-.01em}
        h2{font-size:19px;margin:0 0 12px}
        h3{margin:0}
        code{font:13px ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace}
        .sub,.muted{color:var(--muted)}
        .sub{margin:0}
        main{padding:0 40px 40px}
        section{margin-top:30px}
        .figures{display:grid;grid-template-columns:repeat(auto-fill,minmax(175px,1fr));gap:12px}
        .figure{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:14px 16px}
        .figure .value{font-size:27px;font-weight:650;font-variant-numeric:tabular-nums;line-height:1.2}
        .figure .label{color:var(--muted);font-size:13px}
        .figure .detail{font-size:13px;margin-top:4px;overflow-wrap:anywhere}
        .gallery{display:grid;grid-template-columns:repeat(auto-fill,minmax(230px,1fr));gap:16px}
        .card{background:var(--card);border:1px solid var(--line);border-radius:14px;overflow:hidden;\
        display:flex;flex-direction:column;box-shadow:0 1px 2px #0000000d}
        .photo{aspect-ratio:4/3;background-color:#9994;background-repeat:no-repeat;background-position:center;\
        background-size:contain;background-origin:content-box;padding:14px;display:flex;align-items:center;\
        justify-content:center}
        .photo .initial{font-size:54px;font-weight:700;color:#ffffffd9;text-shadow:0 1px 3px #0005}
        .photo .nophoto{font-size:12px;color:#fff;background:#000000a0;padding:6px 10px;border-radius:8px;\
        max-width:88%;text-align:center}
        .card .body{padding:12px 14px 14px}
        .name{font-weight:620;font-size:16px;overflow-wrap:anywhere}
        .key{font:600 12px ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;background:var(--bg);\
        border:1px solid var(--line);border-radius:5px;padding:0 5px;margin-left:7px;vertical-align:2px}
        .fav{color:var(--accent)}
        .stars{margin-top:4px;font-size:17px;letter-spacing:1px;white-space:nowrap}
        .stars .full{color:var(--star)}
        .stars .empty{color:var(--star-off)}
        .stars .half{background:linear-gradient(90deg,var(--star) 50%,var(--star-off) 50%);\
        -webkit-background-clip:text;background-clip:text;color:transparent}
        .stars .n{color:var(--muted);font-size:13px;margin-left:6px;letter-spacing:0;vertical-align:1px}
        dl{display:grid;grid-template-columns:auto 1fr;gap:2px 12px;margin:8px 0 0;font-size:13px}
        dt{color:var(--muted)}
        dd{margin:0}
        .tags{margin-top:9px;display:flex;flex-wrap:wrap;gap:4px}
        .tag{font-size:12px;background:var(--bg);border:1px solid var(--line);border-radius:999px;padding:1px 9px}
        .note{color:var(--muted);font-size:14px;margin:0 0 12px}
        .controls{display:flex;gap:14px;align-items:center;margin-bottom:10px;flex-wrap:wrap}
        .pager{margin-left:auto}
        input[type=search]{font:inherit;padding:7px 11px;border:1px solid var(--line);border-radius:9px;\
        background:var(--card);color:var(--fg);min-width:280px}
        button{font:inherit;font-size:14px;padding:5px 12px;border:1px solid var(--line);border-radius:8px;\
        background:var(--card);color:var(--fg);cursor:pointer}
        button:disabled{opacity:.4;cursor:default}
        .wrap{overflow-x:auto}
        table{border-collapse:separate;border-spacing:0;width:100%;background:var(--card);border:1px solid var(--line);\
        border-radius:12px;font-size:14px}
        th,td{padding:7px 12px;text-align:left;border-bottom:1px solid var(--line)}
        tbody tr:last-child td{border-bottom:0}
        th{cursor:pointer;user-select:none;font-weight:600;white-space:nowrap}
        th:focus-visible{outline:2px solid var(--accent);outline-offset:-2px}
        th[aria-sort=ascending]::after{content:" ▲";font-size:10px}
        th[aria-sort=descending]::after{content:" ▼";font-size:10px}
        .num{text-align:right;font-variant-numeric:tabular-nums}
        td:nth-child(n+3):nth-child(-n+6),td:nth-child(8){white-space:nowrap}
        td.k{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace}
        .swatch{display:inline-block;width:13px;height:13px;border-radius:4px;vertical-align:-2px;margin-right:7px;\
        border:1px solid #0003}
        footer{color:var(--muted);font-size:12px;padding:0 40px 32px}

        """

    /// Sorts, filters and pages the table from the JSON block. Cells are
    /// filled with `textContent` only: no catalog text is ever parsed as HTML.
    static let script = """
        (function () {
          "use strict";
          var source = document.getElementById("ties-data");
          var rows = JSON.parse(source.textContent);
          var haystack = rows.map(function (r) { return (r[0] + "\\u0001" + r[1] + "\\u0001" + r[6]).toLowerCase(); });
          var body = document.getElementById("ties-body");
          var filter = document.getElementById("filter");
          var status = document.getElementById("table-status");
          var prev = document.getElementById("prev");
          var next = document.getElementById("next");
          var heads = Array.prototype.slice.call(document.querySelectorAll("#ties th"));
          var collator = new Intl.Collator(undefined, { sensitivity: "base", numeric: true });
          var pageSize = 100, page = 0, column = -1, direction = 1, view = rows;
          var numeric = { 2: true, 3: true, 5: true };

          function compare(a, b) {
            var x = a[column], y = b[column];
            if (x === y) { return 0; }
            if (x === "") { return 1; }
            if (y === "") { return -1; }
            var order = numeric[column] ? (x < y ? -1 : 1) : collator.compare(x, y);
            return order * direction;
          }

          function apply() {
            var query = filter.value.trim().toLowerCase();
            if (query === "") {
              view = rows.slice();
            } else {
              view = [];
              for (var i = 0; i < rows.length; i++) {
                if (haystack[i].indexOf(query) !== -1) { view.push(rows[i]); }
              }
            }
            if (column >= 0) { view.sort(compare); }
            page = 0;
            render();
          }

          function cell(row, text, className) {
            var td = document.createElement("td");
            td.textContent = text;
            if (className) { td.className = className; }
            row.appendChild(td);
            return td;
          }

          function render() {
            var pages = Math.max(1, Math.ceil(view.length / pageSize));
            if (page >= pages) { page = pages - 1; }
            var start = page * pageSize, end = Math.min(view.length, start + pageSize);
            var fragment = document.createDocumentFragment();
            for (var i = start; i < end; i++) {
              var r = view[i], tr = document.createElement("tr");
              cell(tr, r[0], "k");
              cell(tr, r[1]);
              cell(tr, String(r[2]), "num");
              cell(tr, r[3].toLocaleString("en"), "num");
              cell(tr, r[4] === "" ? "never" : r[4]);
              cell(tr, r[5] ? "\\u2665 yes" : "");
              cell(tr, r[6]);
              var colour = cell(tr, r[7]);
              if (/^#[0-9A-Fa-f]{6}$/.test(r[7])) {
                var swatch = document.createElement("span");
                swatch.className = "swatch";
                swatch.style.backgroundColor = r[7];
                colour.insertBefore(swatch, colour.firstChild);
              }
              fragment.appendChild(tr);
            }
            body.textContent = "";
            body.appendChild(fragment);
            var shown = view.length === 0 ? "No tie matches"
              : "Showing " + (start + 1).toLocaleString("en") + "\\u2013" + end.toLocaleString("en")
                + " of " + view.length.toLocaleString("en");
            if (view.length !== rows.length) { shown += " (filtered from " + rows.length.toLocaleString("en") + ")"; }
            status.textContent = shown;
            prev.disabled = page === 0;
            next.disabled = page >= pages - 1;
          }

          function sortBy(head) {
            var chosen = Number(head.getAttribute("data-col"));
            direction = chosen === column ? -direction : 1;
            column = chosen;
            heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
            head.setAttribute("aria-sort", direction === 1 ? "ascending" : "descending");
            apply();
          }

          heads.forEach(function (head) {
            head.addEventListener("click", function () { sortBy(head); });
            head.addEventListener("keydown", function (event) {
              if (event.key === "Enter" || event.key === " ") { event.preventDefault(); sortBy(head); }
            });
          });
          var timer = 0;
          filter.addEventListener("input", function () {
            clearTimeout(timer);
            timer = setTimeout(apply, rows.length > 20000 ? 150 : 0);
          });
          prev.addEventListener("click", function () { page--; render(); });
          next.addEventListener("click", function () { page++; render(); });
          apply();
        })();

        """
}
