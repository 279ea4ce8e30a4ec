// "What the sink sees twice" on the lesson page, end to end in headless Chromium against the
// release build: SQLite (sql.js, WebAssembly) is fetched only once the section is reached; the
// lesson's dedupe query, run by it over the lab's append-only table, returns exactly the engine's
// dedupe view, row for row, in the default scenario and after the lab's settings change; the table
// really holds the duplicates the query leaves unread; and the button runs it again.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import { serve, launch, open, settled, shotPath } from "./harness.mjs";

let server, base, browser;
before(async () => {
  ({ server, base } = await serve());
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

const SECTION = "#sink-sees-twice";
const AXE = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/// Waits until the section has run the query over the lab's current run, then returns the
/// query's rows and the engine's tables for that run, each in the view's order.
async function resultForCurrentRun(page) {
  await settled(page);
  // The page's module, as a script on the page reaches it (a predicate below must not be async).
  await page.evaluate(async () => { window.dedupeSqlState = (await import("/pkg/lesson-page.js")).dedupeSql; });
  await page.waitForFunction((selector) => {
    const lab = document.querySelector("#lab");
    return document.querySelector(selector).dataset.state === "done" && !lab.busy && window.dedupeSqlState.result?.forRun === lab.view.summary;
  }, SECTION, { timeout: 30000, polling: 100 });
  return page.evaluate(async (selector) => {
    const { dedupeSql } = await import("/pkg/lesson-page.js");
    const engine = document.querySelector("#lab").view.lab;
    const byKey = (a, b) => a[1] - b[1] || a[0] - b[0] || a[2] - b[2];
    const section = document.querySelector(selector);
    const { result } = dedupeSql;
    return {
      sql: result.rows.map((r) => [...r]).sort(byKey),
      columns: result.columns,
      view: engine.sink_table("dedupe-view").map((r) => [r.product_id, r.window_start_ms, r.order_count]).sort(byKey),
      appendOnly: engine.sink_table("append-only").length,
      tableRows: result.tableRows,
      orphans: result.orphans,
      orphansUnread: result.orphansUnread,
      compare: section.querySelector("[data-sql-compare]").textContent,
      counts: section.querySelector("[data-sql-counts]").textContent,
      engineLine: section.querySelector("[data-sql-engine]").textContent,
      shownRows: section.querySelectorAll("[data-sql-result] tbody tr").length,
      runs: dedupeSql.runs,
    };
  }, SECTION);
}

/// The section with its result through axe-core: its serious or critical violations. (Run last:
/// axe adds an inline style of its own, which the page's CSP refuses with a console error.)
async function seriousViolations(page) {
  await page.evaluate(AXE);
  return page.evaluate(async (selector) => (await window.axe.run(document.querySelector(selector))).violations
    .filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`), SECTION);
}

function sqlRequests(page) {
  const seen = [];
  page.on("request", (request) => {
    const path = new URL(request.url()).pathname;
    if (path.startsWith("/pkg/sql/") || /sql-wasm/.test(path)) seen.push(path);
  });
  return seen;
}

test("SQLite is fetched only when the section is reached, and the query returns the dedupe view", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  const requested = sqlRequests(page);
  await settled(page);
  // The student reads the lab; the section is far below.
  await page.mouse.wheel(0, 600);
  await page.waitForTimeout(1500);
  assert.deepEqual(requested, [], "nothing of SQLite is fetched before the section is reached");
  assert.equal(await page.evaluate(() => typeof globalThis.initSqlJs), "undefined");
  assert.equal(await page.$eval(SECTION, (s) => s.dataset.state ?? ""), "");
  const beforeScripts = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname).filter((p) => p.endsWith(".js")));
  assert.deepEqual(beforeScripts, ["/pkg/lesson-page.js"]);

  // Reached: it loads SQLite and runs by itself.
  await page.$eval(SECTION, (s) => s.scrollIntoView({ block: "start" }));
  const r = await resultForCurrentRun(page);
  assert.deepEqual(requested.sort(), ["/pkg/sql/sql-wasm.js", "/pkg/sql/sql-wasm.wasm"]);
  assert.deepEqual(r.columns, ["product_id", "window_start", "order_count"]);
  assert.equal(r.sql.length, 200, "2 windows × 100 products");
  assert.deepEqual(r.sql, r.view, "the query's rows are the dedupe view's, row for row");
  assert.equal(r.compare, "200 rows, the same rows as the dedupe view.");
  // The append-only table really holds duplicates, which the query leaves unread.
  assert.equal(r.tableRows, r.appendOnly);
  assert.ok(r.tableRows > r.sql.length, `${r.tableRows} stored rows > ${r.sql.length} returned`);
  assert.equal(r.orphans, 1500, "the 15 emissions after checkpoint 42's barrier, 100 products each");
  assert.equal(r.orphansUnread, 1500);
  assert.match(r.counts, new RegExp(`holds ${r.tableRows.toLocaleString("en-US")} rows; the query returns 200 and leaves ${(r.tableRows - 200).toLocaleString("en-US")} unread: 1,500 orphans`));
  assert.match(r.engineLine, /^SQLite 3\.\d+\.\d+ \(sql\.js, WebAssembly\) loaded [\d,]+ rows and ran the query in [\d,]+ ms\.$/);
  assert.equal(r.shownRows, 200);
  // The query the page runs is the one it shows: the lesson's, plus the stated tie-break.
  const shown = await page.$eval(`${SECTION} [data-sql]`, (c) => c.textContent);
  assert.match(shown, /ORDER BY emitted_at DESC\n\s+, order_count DESC {2}-- tie-break/);
  assert.match(shown, /^SELECT\n {2}product_id,\n {2}window_start,\n {2}order_count\nFROM \(/);
  assert.match(shown, /FROM stream_sink\n\) AS ranked\nWHERE rn = 1$/);
  await page.locator(SECTION).screenshot({ path: shotPath("dedupe-sql-1280.png") });
  assert.deepEqual(errors, []);
  assert.deepEqual(await seriousViolations(page), []);
});

test("after each change in the lab the query runs again and still returns the dedupe view", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  await settled(page);
  await page.$eval(SECTION, (s) => s.scrollIntoView({ block: "start" }));
  await resultForCurrentRun(page);
  const scenarios = [
    { interval: "5s", "crash-at": "10:02:10" },
    { scenario: "backpressure" },
    // Spark's micro-batches: the model's append-only sink then holds no orphan.
    { mode: "micro-batch", "crash-at": "10:00:46" },
    { "retry-rate": "2%", products: "7", "crash-at": "10:03:05" },
  ];
  let previous;
  for (const attributes of scenarios) {
    await page.evaluate((attributes) => {
      const lab = document.querySelector("#lab");
      for (const name of ["interval", "crash-at", "scenario", "mode", "retry-rate", "products"]) lab.removeAttribute(name);
      for (const [name, value] of Object.entries(attributes)) lab.setAttribute(name, value);
    }, attributes);
    const r = await resultForCurrentRun(page);
    const what = JSON.stringify(attributes);
    assert.ok(r.sql.length > 0, `${what}: rows`);
    assert.deepEqual(r.sql, r.view, `${what}: the query's rows are the dedupe view's`);
    assert.equal(r.compare, `${r.sql.length.toLocaleString("en-US")} rows, the same rows as the dedupe view.`, what);
    assert.equal(r.tableRows, r.appendOnly, what);
    assert.ok(r.tableRows > r.sql.length, `${what}: ${r.tableRows} stored > ${r.sql.length} returned`);
    assert.equal(r.orphansUnread, r.orphans, `${what}: every orphan unread`);
    if (attributes.mode) assert.match(r.counts, /holds no orphan, so all of them are earlier running totals/, what);
    else assert.ok(r.orphans > 0, `${what}: the crash left orphans`);
    assert.notDeepEqual(r.sql, previous, `${what}: a different run`);
    previous = r.sql;
  }
  // The button runs it again over the same run.
  const runs = await page.evaluate(async () => (await import("/pkg/lesson-page.js")).dedupeSql.runs);
  await page.click(`${SECTION} [data-action=run-sql]`);
  await page.waitForFunction((runs) => window.dedupeSqlState.runs > runs
    && document.querySelector("#sink-sees-twice").dataset.state === "done", runs, { polling: 100 });
  const again = await resultForCurrentRun(page);
  assert.deepEqual(again.sql, previous);
  assert.deepEqual(errors, []);
});

test("the button loads SQLite and runs the query before the section has scrolled into view", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`, { width: 390, height: 844, colorScheme: "dark" });
  const requested = sqlRequests(page);
  await settled(page);
  assert.deepEqual(requested, []);
  await page.$eval(`${SECTION} [data-action=run-sql]`, (b) => b.click());
  const r = await resultForCurrentRun(page);
  assert.deepEqual(r.sql, r.view);
  assert.ok(requested.includes("/pkg/sql/sql-wasm.wasm"));
  assert.equal(r.compare, "200 rows, the same rows as the dedupe view.");
  await page.$eval(SECTION, (s) => s.scrollIntoView({ block: "start" }));
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
  assert.ok(overflow <= 0, `no horizontal scrolling at 390 px (${overflow})`);
  await page.locator(SECTION).screenshot({ path: shotPath("dedupe-sql-390-dark.png") });
  assert.deepEqual(errors, []);
  assert.deepEqual(await seriousViolations(page), []);
});
