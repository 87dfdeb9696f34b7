extension Page {
    /// The page's style: one column on a phone, two beside each other from
    /// 48em; focus always visible (the page works with the keyboard alone).
    static let css = #"""
        :root { color-scheme: light dark; --accent: #1d5fbf; --line: #8884; --radius: 10px;
          font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
        * { box-sizing: border-box; }
        body { margin: 0; padding: 0 1rem 2rem; max-width: 70rem; margin-inline: auto; line-height: 1.4; }
        .hidden-label { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
        .bar { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; padding: .75rem 0; }
        .bar h1 { font-size: 1.3rem; margin: 0; }
        .search { display: flex; flex-wrap: wrap; gap: .4rem; flex: 1 1 20rem; min-width: 0; }
        .search input { flex: 1 1 12rem; min-width: 0; }
        .search select { flex: 1 1 7rem; min-width: 0; }
        .undo { display: flex; gap: .4rem; flex-wrap: wrap; }
        input, select, button { font: inherit; padding: .45rem .6rem; border-radius: 8px; border: 1px solid var(--line);
          background: Canvas; color: CanvasText; min-height: 2.6rem; }
        button { cursor: pointer; }
        button:disabled { opacity: .5; cursor: default; }
        button.primary { background: var(--accent); color: #fff; border-color: var(--accent); font-weight: 600; }
        :focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
        .error { color: #c62828; margin: .25rem 0; min-height: 0; }
        .error:empty { display: none; }
        #query-error { flex-basis: 100%; }
        .ties { display: flex; flex-direction: column; gap: .5rem; margin-bottom: 1rem; }
        .segments { display: flex; gap: 2px; overflow-x: auto; border: 1px solid var(--line); border-radius: var(--radius);
          padding: 2px; scrollbar-width: thin; }
        .segments button { flex: 1 0 auto; min-width: 3rem; border: 0; border-radius: 8px; display: flex; gap: .4rem;
          align-items: center; justify-content: center; background: transparent; }
        .segments button[aria-selected="true"] { background: var(--accent); color: #fff; }
        .swatch { width: .9rem; height: .9rem; border-radius: 50%; border: 1px solid #0003; flex: none; }
        .pager { display: flex; gap: .5rem; align-items: center; justify-content: flex-end; }
        .tie { display: grid; gap: 1rem; }
        @media (min-width: 48em) { .tie { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); align-items: start; } }
        .tint { border-radius: var(--radius); min-height: 14rem; display: grid; place-items: center; padding: 1rem;
          background: #888; }
        .tint img { max-width: 100%; max-height: 22rem; object-fit: contain; }
        .no-photo { color: #fff; text-shadow: 0 1px 2px #0008; }
        .facts h2 { margin: 0; font-size: 1.6rem; overflow-wrap: anywhere; }
        .key { margin: .1rem 0 .5rem; opacity: .7; }
        .stars { display: flex; gap: .1rem; }
        .stars button { border: 0; background: none; font-size: 1.7rem; line-height: 1; padding: .1rem .15rem;
          color: #e0a800; min-height: 2.6rem; min-width: 2.4rem; }
        .rate, .tag { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; margin: .5rem 0; }
        .rate input { width: 6rem; }
        .field-error { flex-basis: 100%; }
        .numbers { display: grid; grid-template-columns: auto 1fr; gap: .2rem 1rem; margin: .75rem 0; }
        .numbers dt { opacity: .7; }
        .numbers dd { margin: 0; font-weight: 600; }
        .actions { display: flex; gap: .5rem; flex-wrap: wrap; }
        .actions button { flex: 1 1 8rem; }
        #favorite[aria-pressed="true"] { background: #fff3c4; color: #5c4400; border-color: #e0a800; }
        h3 { font-size: 1rem; margin: 1.2rem 0 .4rem; }
        .tags { list-style: none; padding: 0; margin: 0; display: flex; flex-wrap: wrap; gap: .4rem; }
        .tags li { display: flex; align-items: center; gap: .2rem; border: 1px solid var(--line); border-radius: 999px;
          padding-left: .7rem; overflow-wrap: anywhere; }
        .tags button { border: 0; background: none; min-height: 2.2rem; padding: .2rem .6rem; }
        .history { padding-left: 1.2rem; margin: 0; max-height: 16rem; overflow-y: auto; }
        .history li { margin: .15rem 0; }
        .history .note { opacity: .75; }
        .empty, .status { opacity: .75; }

        """#
}
