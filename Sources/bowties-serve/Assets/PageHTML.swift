extension Page {
    /// The one page: structure only. Its style is `/app.css`, its behaviour
    /// `/app.js` (the Content-Security-Policy allows nothing inline), and
    /// every name in it is set by the script as text.
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>BowTies</title>
        <link rel="stylesheet" href="/app.css">
        <script src="/app.js" defer></script>
        </head>
        <body>
        <header class="bar">
          <h1>BowTies</h1>
          <form id="search" class="search" role="search">
            <label for="q" class="hidden-label">Search</label>
            <input id="q" name="q" type="search" placeholder="rating:4.. tag:silk" autocomplete="off" spellcheck="false">
            <label for="sort" class="hidden-label">Sort by</label>
            <select id="sort" name="sort">
              <option value="added">Added</option>
              <option value="key">Key</option>
              <option value="name">Name</option>
              <option value="rating">Rating</option>
              <option value="timesWorn">Times worn</option>
              <option value="lastWorn">Last worn</option>
            </select>
            <button type="submit">Search</button>
          </form>
          <p id="query-error" class="error" role="alert"></p>
          <div class="undo">
            <button id="undo" type="button" disabled>Undo</button>
            <button id="redo" type="button" disabled>Redo</button>
          </div>
        </header>
        <nav class="ties" aria-label="Bow ties">
          <div id="segments" class="segments" role="tablist" aria-label="Bow ties by colour"></div>
          <div class="pager">
            <button id="first" type="button" aria-label="First page">&#171;</button>
            <button id="previous" type="button" aria-label="Previous page">&#8249;</button>
            <span id="range" aria-live="polite"></span>
            <button id="next" type="button" aria-label="Next page">&#8250;</button>
            <button id="last" type="button" aria-label="Last page">&#187;</button>
          </div>
        </nav>
        <main id="tie" class="tie" hidden>
          <div id="tint" class="tint">
            <img id="photo" alt="" hidden>
            <p id="no-photo" class="no-photo" hidden>No photo</p>
          </div>
          <div class="facts">
            <h2 id="name"></h2>
            <p class="key">Key <span id="key"></span></p>
            <div id="stars" class="stars" role="group" aria-label="Rating"></div>
            <form id="rate" class="rate" novalidate>
              <label for="rating">Rating</label>
              <input id="rating" name="rating" type="number" step="0.5" inputmode="decimal" aria-describedby="rating-error">
              <button type="submit">Rate</button>
              <p id="rating-error" class="error field-error" role="alert"></p>
            </form>
            <dl class="numbers">
              <dt>Times worn</dt><dd id="times-worn"></dd>
              <dt>Last worn</dt><dd id="last-worn"></dd>
            </dl>
            <div class="actions">
              <button id="wear" type="button" class="primary">Wear</button>
              <button id="favorite" type="button" aria-pressed="false">&#9734; Favourite</button>
            </div>
            <p id="action-error" class="error" role="alert"></p>
            <section aria-labelledby="tags-title">
              <h3 id="tags-title">Tags</h3>
              <ul id="tags" class="tags"></ul>
              <form id="tag" class="tag">
                <label for="new-tag" class="hidden-label">New tag</label>
                <input id="new-tag" name="tag" type="text" placeholder="New tag" aria-describedby="tag-error">
                <button type="submit">Add tag</button>
                <p id="tag-error" class="error field-error" role="alert"></p>
              </form>
            </section>
            <section aria-labelledby="history-title">
              <h3 id="history-title">Worn</h3>
              <ol id="history" class="history"></ol>
            </section>
          </div>
        </main>
        <p id="empty" class="empty" hidden>No bow ties match.</p>
        <p id="status" class="status" role="status" aria-live="polite"></p>
        </body>
        </html>

        """#
}
