extension Page {
    /// The page's behaviour. Every name and value from the catalog goes
    /// into the page as text (`textContent`), never as markup; colours
    /// only when they are `#RRGGBB`.
    static let javaScript = #"""
        "use strict";
        (() => {
        const $ = (id) => document.getElementById(id);
        // `at`: where the page starts ({}, { after: CURSOR }, { before: CURSOR
        // or "end" }); `offset`: how many ties precede it, for the range.
        const state = { q: "", sort: "added", at: {}, offset: 0, back: false, next: null, previous: null,
          limit: 50, key: null, ties: [], total: 0, ratingMin: 0, ratingMax: 5, tie: null };
        const hex = /^#[0-9A-Fa-f]{6}$/;

        async function call(method, url, body) {
          const options = { method, headers: {}, credentials: "same-origin" };
          if (body !== undefined) {
            options.headers["Content-Type"] = "application/json";
            options.body = JSON.stringify(body);
          }
          const response = await fetch(url, options);
          const data = await response.json().catch(() => null);
          if (!response.ok) {
            const error = new Error((data && data.error && data.error.message) || response.statusText);
            error.info = (data && data.error) || {};
            throw error;
          }
          return data;
        }

        function say(text) { $("status").textContent = text; }
        function fail(element, error) {
          const hint = error.info && error.info.hint ? "\n" + error.info.hint : "";
          $(element).textContent = error.message + hint;
        }
        function clearErrors() {
          for (const id of ["action-error", "rating-error", "tag-error"]) $(id).textContent = "";
        }
        const enc = (key) => encodeURIComponent(key);

        async function loadList() {
          const params = new URLSearchParams({ q: state.q, sort: state.sort, limit: String(state.limit), ...state.at });
          try {
            const page = await call("GET", "/api/ties?" + params);
            $("query-error").textContent = "";
            if (page.ties.length === 0 && page.total > 0 && (state.at.after || state.at.before)) {
              // The ties after the cursor are gone: show the last page.
              state.at = { before: "end" };
              return loadList();
            }
            if (page.offset !== null) state.offset = page.offset;
            else if (state.back) state.offset = Math.max(0, state.offset - page.ties.length);
            state.back = false;
            state.ties = page.ties; state.total = page.total; state.next = page.next; state.previous = page.previous;
            state.ratingMin = page.ratingMin; state.ratingMax = page.ratingMax;
            renderSegments();
            if (!state.ties.some((t) => t.key === state.key)) state.key = state.ties.length ? state.ties[0].key : null;
            renderSelection();
            await loadTie();
          } catch (error) {
            fail("query-error", error);
          }
        }

        function renderSegments() {
          const box = $("segments");
          box.replaceChildren();
          for (const tie of state.ties) {
            const button = document.createElement("button");
            button.type = "button";
            button.setAttribute("role", "tab");
            button.dataset.key = tie.key;
            const swatch = document.createElement("span");
            swatch.className = "swatch";
            if (hex.test(tie.tintColor || "")) swatch.style.backgroundColor = tie.tintColor;
            const label = document.createElement("span");
            label.textContent = tie.searchKey || (tie.name || tie.key).slice(0, 12);
            button.title = tie.name || tie.key;
            button.setAttribute("aria-label", tie.name || tie.key);
            button.append(swatch, label);
            button.addEventListener("click", () => select(tie.key));
            box.append(button);
          }
          const first = state.offset + (state.ties.length ? 1 : 0);
          $("range").textContent = `${first.toLocaleString()}–${(state.offset + state.ties.length).toLocaleString()}`
            + ` of ${state.total.toLocaleString()}`;
          $("first").disabled = $("previous").disabled = state.previous === null;
          $("last").disabled = $("next").disabled = state.next === null;
          $("empty").hidden = state.ties.length > 0;
          $("tie").hidden = state.ties.length === 0;
        }

        function renderSelection() {
          for (const button of $("segments").children) {
            const selected = button.dataset.key === state.key;
            button.setAttribute("aria-selected", String(selected));
            button.tabIndex = selected ? 0 : -1;
          }
        }

        function select(key) {
          state.key = key;
          clearErrors();
          renderSelection();
          loadTie();
        }

        async function loadTie() {
          if (state.key === null) { state.tie = null; return; }
          try {
            const [tie, history] = await Promise.all([
              call("GET", "/api/ties/" + enc(state.key)),
              call("GET", "/api/ties/" + enc(state.key) + "/history"),
            ]);
            state.tie = tie;
            renderTie(tie, history);
          } catch (error) {
            fail("action-error", error);
          }
          loadUndo();
        }

        function renderTie(tie, history) {
          $("name").textContent = tie.name || "(no name)";
          $("key").textContent = tie.key;
          $("tint").style.backgroundColor = hex.test(tie.tintColor || "") ? tie.tintColor : "";
          const photo = $("photo");
          if (tie.photoURL) {
            const url = tie.photoURL + "?v=" + enc((tie.photoData && tie.photoData.sha256) || "");
            if (photo.getAttribute("src") !== url) photo.src = url;
            photo.alt = "Photo of " + (tie.name || tie.key);
            photo.hidden = false; $("no-photo").hidden = true;
          } else {
            photo.removeAttribute("src"); photo.hidden = true; $("no-photo").hidden = false;
          }
          renderStars(tie.rating || 0);
          if (document.activeElement !== $("rating")) $("rating").value = String(tie.rating ?? "");
          $("rating").min = String(state.ratingMin); $("rating").max = String(state.ratingMax);
          $("times-worn").textContent = String(tie.timesWorn ?? 0);
          $("last-worn").textContent = tie.lastWornWords || "never";
          const favorite = tie.isFavorite === true;
          $("favorite").setAttribute("aria-pressed", String(favorite));
          $("favorite").textContent = (favorite ? "★" : "☆") + " Favourite";
          const tags = $("tags");
          tags.replaceChildren();
          for (const name of tie.tags || []) {
            const item = document.createElement("li");
            const text = document.createElement("span");
            text.textContent = name;
            const remove = document.createElement("button");
            remove.type = "button";
            remove.textContent = "×";
            remove.setAttribute("aria-label", "Remove tag " + name);
            remove.addEventListener("click", () => change("tags", { remove: [name] }, "tag-error"));
            item.append(text, remove);
            tags.append(item);
          }
          const list = $("history");
          list.replaceChildren();
          for (const wear of history.wears.slice(0, 100)) {
            const item = document.createElement("li");
            const time = document.createElement("time");
            time.dateTime = wear.date;
            time.textContent = wear.words;
            time.title = wear.date;
            item.append(time);
            if (wear.note) {
              const note = document.createElement("span");
              note.className = "note";
              note.textContent = " — " + wear.note;
              item.append(note);
            }
            list.append(item);
          }
          if (history.wears.length === 0) {
            const item = document.createElement("li");
            item.textContent = history.baselineTimesWorn > 0 ? `${history.baselineTimesWorn} times before the history began` : "Never";
            list.append(item);
          }
        }

        function renderStars(rating) {
          const box = $("stars");
          box.replaceChildren();
          const count = Math.round(state.ratingMax);
          for (let n = 1; n <= count; n++) {
            const star = document.createElement("button");
            star.type = "button";
            star.textContent = rating >= n - 0.25 ? "★" : "☆";
            star.setAttribute("aria-label", `Rate ${n} of ${count}`);
            star.setAttribute("aria-pressed", String(Math.round(rating) === n));
            star.addEventListener("click", () => change("rate", { rating: n }, "rating-error"));
            box.append(star);
          }
          box.setAttribute("aria-label", `Rating ${rating} of ${count}`);
        }

        async function loadUndo() {
          try {
            const undo = await call("GET", "/api/undo");
            $("undo").disabled = !undo.undo;
            $("undo").textContent = undo.undo ? `Undo "${undo.undo}"` : "Undo";
            $("redo").disabled = !undo.redo;
            $("redo").textContent = undo.redo ? `Redo "${undo.redo}"` : "Redo";
          } catch (error) { /* the next change tries again */ }
        }

        async function change(action, body, errorField) {
          if (!state.key) return;
          clearErrors();
          try {
            await call("POST", "/api/ties/" + enc(state.key) + "/" + action, body);
            await refresh();
          } catch (error) {
            const field = error.info && error.info.field;
            fail(field === "rating" ? "rating-error" : errorField || "action-error", error);
          }
        }

        async function undo(which) {
          clearErrors();
          try {
            const answer = await call("POST", "/api/" + which, {});
            say((which === "undo" ? "Undid " : "Redid ") + `"${answer.action}"`);
            await refresh();
          } catch (error) { fail("action-error", error); }
        }

        let refreshing = null;
        function refresh() {
          if (!refreshing) refreshing = loadList().finally(() => { refreshing = null; });
          return refreshing;
        }

        function listen() {
          const events = new EventSource("/api/events");
          events.addEventListener("changed", () => refresh());
        }

        document.addEventListener("DOMContentLoaded", () => {
          $("search").addEventListener("submit", (event) => {
            event.preventDefault();
            state.q = $("q").value; state.sort = $("sort").value; state.at = {};
            loadList();
          });
          $("sort").addEventListener("change", () => { state.sort = $("sort").value; state.at = {}; loadList(); });
          $("first").addEventListener("click", () => { state.at = {}; loadList(); });
          $("previous").addEventListener("click", () => {
            if (state.previous === null) return;
            state.at = { before: state.previous }; state.back = true; loadList();
          });
          $("next").addEventListener("click", () => {
            if (state.next === null) return;
            state.offset += state.ties.length; state.at = { after: state.next }; loadList();
          });
          $("last").addEventListener("click", () => { state.at = { before: "end" }; loadList(); });
          $("wear").addEventListener("click", () => change("wear", {}));
          $("favorite").addEventListener("click", () => change("favorite", { favorite: !(state.tie && state.tie.isFavorite) }));
          $("rate").addEventListener("submit", (event) => {
            event.preventDefault();
            const text = $("rating").value.trim();
            const value = Number(text);
            if (text === "" || !Number.isFinite(value)) { $("rating-error").textContent = "rating must be a number."; return; }
            change("rate", { rating: value }, "rating-error");
          });
          $("tag").addEventListener("submit", (event) => {
            event.preventDefault();
            const name = $("new-tag").value.trim();
            if (!name) return;
            change("tags", { add: [name] }, "tag-error").then(() => {
              if (!$("tag-error").textContent) $("new-tag").value = "";
            });
          });
          $("undo").addEventListener("click", () => undo("undo"));
          $("redo").addEventListener("click", () => undo("redo"));
          $("segments").addEventListener("keydown", (event) => {
            const index = state.ties.findIndex((t) => t.key === state.key);
            let next = index;
            if (event.key === "ArrowRight") next = Math.min(state.ties.length - 1, index + 1);
            else if (event.key === "ArrowLeft") next = Math.max(0, index - 1);
            else if (event.key === "Home") next = 0;
            else if (event.key === "End") next = state.ties.length - 1;
            else return;
            event.preventDefault();
            if (next >= 0 && next !== index) {
              select(state.ties[next].key);
              $("segments").children[next].focus();
            }
          });
          loadList();
          listen();
        });
        })();

        """#
}
