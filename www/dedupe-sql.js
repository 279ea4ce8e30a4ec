// The lesson page's "What the sink sees twice": the lesson's dedupe query, run in the browser by a
// real SQL engine (SQLite compiled to WebAssembly: sql.js, copied into pkg/sql/ by
// scripts/build-wasm.sh) over the append-only table of the run the lab above shows, and its result
// set beside the engine's own dedupe view. SQLite is fetched only when the section is reached (it
// scrolls into view, or the student presses "Run the query"), never with the page. The query run
// is the text the page shows (the section's <code data-sql>), so what the student reads is what runs.

// Beside the bundle (pkg/lesson-page.js) and beside this file alike: pkg/sql/.
const SQL_DIR = new URL("../pkg/sql/", import.meta.url);
// The table the query reads: the append-only sink's rows, times in ms since midnight.
const CREATE_TABLE = "CREATE TABLE stream_sink (product_id INTEGER, window_start INTEGER, order_count INTEGER, emitted_at INTEGER)";
// A result this long is compared whole, and shown up to here.
const SHOWN_ROWS = 500;
// Rows inserted per task (about 15 ms in Chromium), and per INSERT statement (4 parameters a
// row, well under SQLite's limit of 32,766).
const INSERT_SLICE = 10_000;
const ROWS_PER_INSERT = 500;
// A change in the lab re-runs the query once the change has settled.
const SETTLE_MS = 300;

const number = new Intl.NumberFormat("en-US");
const plural = (n, one, many = `${one}s`) => `${number.format(n)} ${n === 1 ? one : many}`;

let sqlite;
/// sql.js, loaded once: its script (a classic script: it defines initSqlJs) and then its wasm,
/// both from pkg/sql/. A failed load is tried again on the next run.
function loadSqlite() {
  sqlite ??= new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = new URL("sql-wasm.js", SQL_DIR).href;
    script.onload = () => {
      if (typeof globalThis.initSqlJs !== "function") return reject(new Error("sql-wasm.js defined no initSqlJs"));
      globalThis.initSqlJs({ locateFile: (file) => new URL(file, SQL_DIR).href }).then(resolve, reject);
    };
    script.onerror = () => reject(new Error(`could not load ${script.src}`));
    document.head.append(script);
  }).catch((error) => {
    sqlite = undefined;
    throw error;
  });
  return sqlite;
}

/// Resolves once the lab has a finished run and no change is pending.
async function labIdle(lab) {
  await lab.whenReady();
  while (lab.busy || !lab.view?.summary || !lab.view?.lab) await new Promise((r) => setTimeout(r, 50));
}

const el = (tag, attributes = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
};

/// "product 7 · 10:05:00 · 1,234 orders", for a row that differs.
const rowText = ([product, windowText, count]) => `product ${product}, window ${windowText}, ${plural(count, "order")}`;

/// Loads `stored` (the append-only rows, a typed array per column) into a fresh in-memory
/// database as stream_sink, runs `query` and returns its result, the table's row count and
/// SQLite's version. A large table is inserted a slice per task, so the page keeps answering.
async function runQuery(SQL, stored, query) {
  const { product_id: productIds, window_start_ms: windows, order_count: counts, emitted_at_ms: emitted } = stored;
  const db = new SQL.Database();
  try {
    db.run(CREATE_TABLE);
    db.run("BEGIN");
    // Many rows per INSERT: a call into the wasm per row would cost more than SQLite's work.
    const statements = new Map();
    const insert = (from, to) => {
      const n = to - from;
      if (!statements.has(n)) statements.set(n, db.prepare(`INSERT INTO stream_sink VALUES ${Array(n).fill("(?, ?, ?, ?)").join(", ")}`));
      const values = new Array(4 * n);
      for (let i = from, j = 0; i < to; i++, j += 4) {
        values[j] = productIds[i];
        values[j + 1] = windows[i];
        values[j + 2] = counts[i];
        values[j + 3] = emitted[i];
      }
      statements.get(n).run(values);
    };
    const rows = productIds.length;
    for (let from = 0; from < rows; from += INSERT_SLICE) {
      if (from > 0) await new Promise((resolve) => setTimeout(resolve));
      const end = Math.min(rows, from + INSERT_SLICE);
      for (let at = from; at < end; at += ROWS_PER_INSERT) insert(at, Math.min(end, at + ROWS_PER_INSERT));
    }
    for (const statement of statements.values()) statement.free();
    db.run("COMMIT");
    // The query itself, in a task of its own.
    await new Promise((resolve) => setTimeout(resolve));
    const queried = performance.now();
    const [result = { columns: [], values: [] }] = db.exec(query);
    const queryMs = performance.now() - queried;
    const [[tableRows]] = db.exec("SELECT count(*) FROM stream_sink")[0].values;
    const [[version]] = db.exec("SELECT sqlite_version()")[0].values;
    return { ...result, tableRows, version, queryMs };
  } finally {
    db.close();
  }
}

/// Orphans (rows the crashed attempt wrote after the checkpoint it restarted from) in `stored`,
/// and how many of them a later row of their key leaves unread: the query keeps each key's
/// latest emission.
function orphansUnread(stored) {
  const { product_id: productIds, window_start_ms: windows, emitted_at_ms: emitted, orphan } = stored;
  const newest = new Map();
  for (let i = 0; i < productIds.length; i++) {
    const key = `${productIds[i]},${windows[i]}`;
    newest.set(key, Math.max(newest.get(key) ?? -1, emitted[i]));
  }
  let orphans = 0, unread = 0;
  for (let i = 0; i < productIds.length; i++) {
    if (!orphan[i]) continue;
    orphans += 1;
    if (emitted[i] < newest.get(`${productIds[i]},${windows[i]}`)) unread += 1;
  }
  return { orphans, unread };
}

/// Sets up the section: runs the query when it first comes into view, when the button is
/// pressed, and again after each change in the lab while it is in view (or when it next comes
/// into view). Returns the state a script on the page (and a test) can read: `result` holds the
/// last run's figures once `section.dataset.state` is "done".
export function mountDedupeSql(section, lab) {
  const state = { result: undefined, runs: 0 };
  if (!section || !lab) return state;
  const query = section.querySelector("[data-sql]").textContent.trim();
  const button = section.querySelector("[data-action=run-sql]");
  const status = section.querySelector("[data-sql-status]");
  const counts = section.querySelector("[data-sql-counts]");
  const compare = section.querySelector("[data-sql-compare]");
  const engineLine = section.querySelector("[data-sql-engine]");
  const output = section.querySelector("[data-sql-result]");
  let running = false, again = false, inView = false, stale = false, settleTimer;

  const show = async () => {
    section.dataset.state = "loading";
    status.textContent = sqlite ? "Running the query…" : "Loading SQLite (WebAssembly)…";
    const SQL = await loadSqlite();
    await labIdle(lab);
    const engine = lab.view.lab;
    // The run the result is for: the lab's headline figures, a new object with each run.
    const forRun = lab.view.summary;
    const started = performance.now();
    const stored = engine.sink_columns("append-only");
    const view = engine.sink_table("dedupe-view");
    const read = performance.now();
    const result = await runQuery(SQL, stored, query);
    const took = performance.now() - read;
    state.timing = { readMs: read - started, sqlMs: took, queryMs: result.queryMs };

    // The result as the query returns it; times shown as clock text, as the engine writes them
    // (the view has a row for every key of the table).
    const clock = new Map(view.map((r) => [r.window_start_ms, r.window_start]));
    const column = (name) => result.columns.indexOf(name);
    const [p, w, c] = ["product_id", "window_start", "order_count"].map(column);
    const rows = result.values.map((v) => [v[p], v[w], v[c]]);

    // Compared with the dedupe view, row for row, in the view's order (window start, product).
    const byKey = (a, b) => a[1] - b[1] || a[0] - b[0] || a[2] - b[2];
    const fromSql = rows.map((r) => [...r]).sort(byKey);
    const fromView = view.map((r) => [r.product_id, r.window_start_ms, r.order_count]).sort(byKey);
    const text = (r) => r.join(",");
    const inViewRows = new Set(fromView.map(text)), inSqlRows = new Set(fromSql.map(text));
    const onlySql = fromSql.filter((r) => !inViewRows.has(text(r)));
    const onlyView = fromView.filter((r) => !inSqlRows.has(text(r)));
    const same = onlySql.length === 0 && onlyView.length === 0 && fromSql.length === fromView.length;
    const named = (list) => list.slice(0, 5).map((r) => rowText([r[0], clock.get(r[1]) ?? r[1], r[2]])).join("; ") + (list.length > 5 ? `; and ${number.format(list.length - 5)} more` : "");

    const { orphans, unread } = orphansUnread(stored);
    const dropped = result.tableRows - rows.length;
    counts.replaceChildren(
      "The append-only table (stream_sink) holds ", el("strong", {}, plural(result.tableRows, "row")),
      "; the query returns ", el("strong", {}, number.format(rows.length)), " and leaves ",
      el("strong", {}, number.format(dropped)), " unread: ",
      orphans === 0
        ? "this run's table holds no orphan, so all of them are earlier running totals that a later emission replaced."
        : `${plural(unread, "orphan")} the crashed attempt wrote after its last checkpoint and the replay wrote again${unread < orphans ? ` (${number.format(orphans - unread)} more orphans have no later row and are still read)` : ""}, and ${plural(dropped - unread, "earlier running total")} that a later emission replaced.`,
    );
    compare.dataset.same = String(same);
    compare.textContent = same
      ? `${plural(rows.length, "row")}, the same rows as the dedupe view.`
      : `${plural(rows.length, "row")} against the dedupe view's ${number.format(fromView.length)}. ${onlySql.length ? `Only in the query: ${named(onlySql)}. ` : ""}${onlyView.length ? `Only in the dedupe view: ${named(onlyView)}.` : ""}`;
    engineLine.textContent = `SQLite ${result.version} (sql.js, WebAssembly) loaded ${plural(result.tableRows, "row")} and ran the query in ${number.format(Math.max(1, Math.round(took)))} ms.`;

    const shown = rows.slice(0, SHOWN_ROWS);
    const head = el("tr", {}, ...["product_id", "window_start", "order_count"].map((name) => el("th", { scope: "col" }, name)));
    const body = shown.map(([product, windowMs, count]) => el("tr", {},
      el("td", { class: "num" }, String(product)),
      el("td", { class: "num", title: `${windowMs} ms` }, clock.get(windowMs) ?? String(windowMs)),
      el("td", { class: "num" }, number.format(count))));
    const caption = el("caption", {}, rows.length > shown.length
      ? `The query's first ${number.format(shown.length)} rows of ${number.format(rows.length)}, in the order SQLite returns them (window_start as a clock time; the table stores ms)`
      : `The query's ${plural(rows.length, "row")}, in the order SQLite returns them (window_start as a clock time; the table stores ms)`);
    output.replaceChildren(el("table", {}, caption, el("thead", {}, head), el("tbody", {}, ...body)));
    output.hidden = false;
    state.result = { forRun, columns: result.columns, rows, view: fromView, same, tableRows: result.tableRows, orphans, orphansUnread: unread, version: result.version };
    status.textContent = "";
  };

  const run = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    button.disabled = true;
    try {
      do {
        again = false;
        stale = false;
        await show();
        state.runs += 1;
      } while (again);
      section.dataset.state = "done";
    } catch (error) {
      section.dataset.state = "failed";
      status.textContent = `The query could not run: ${error?.message ?? error}`;
      console.error(error);
    } finally {
      running = false;
      button.disabled = false;
    }
  };

  button.addEventListener("click", run);
  // Reached: the first time the section comes into view it runs by itself; later, if the lab
  // changed meanwhile, it runs again.
  const observer = new IntersectionObserver((entries) => {
    inView = entries.some((entry) => entry.isIntersecting);
    if (inView && ((state.runs === 0 && !running) || stale)) run();
  });
  observer.observe(section);
  lab.addEventListener("checkpointlab-change", () => {
    if (state.runs === 0 && !running) return;
    stale = true;
    clearTimeout(settleTimer);
    settleTimer = setTimeout(() => { if (inView && stale) run(); }, SETTLE_MS);
  });
  return state;
}
