// End to end in headless Chromium: switching the restart design to Spark micro-batches, pinning
// one setting as A and comparing it with B on the charts and the figures, and copying the export.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { serve, launch, open, settled, shotPath, fullScreenshot } from "./harness.mjs";

let server, base, browser;
before(async () => {
  ({ server, base } = await serve());
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

function figures(page) {
  return page.$$eval("#lab >> [data-figure]", (els) => Object.fromEntries(els.map((e) => [e.dataset.figure, e.textContent])));
}

function pinnedFigures(page) {
  return page.$$eval("#lab >> [data-figure-a]", (els) => Object.fromEntries(els.map((e) => [e.dataset.figureA, e.hidden ? null : e.textContent])));
}

/// A checksum of one chart's pixels.
function chartHash(page, name) {
  return page.evaluate((name) => {
    const c = document.querySelector("#lab").shadowRoot.querySelector(`[data-chart=${name}]`);
    const data = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let h = 2166136261;
    for (let i = 0; i < data.length; i += 4) h = Math.imul(h ^ (data[i] + 3 * data[i + 1] + 7 * data[i + 2]), 16777619);
    return h;
  }, name);
}

function engine(page, config) {
  return page.evaluate(async (config) => {
    const { simulate } = await import("/pkg/checkpoint-lab.js");
    return simulate(config);
  }, config);
}

test("switching to micro-batches re-runs the engine in Spark's mode", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  assert.equal(await page.textContent("#lab >> label[for$=-interval]"), "Checkpoint interval");
  await page.selectOption("#lab >> [data-control=mode]", "micro_batch");
  await settled(page);
  assert.equal(await page.textContent("#lab >> label[for$=-interval]"), "Trigger interval");
  assert.equal(await page.textContent("#lab >> [data-figure=interval_replay_events] + .label"), "replayed, crash just before a commit");
  assert.equal(await page.isDisabled("#lab >> [data-control=alignment]"), true, "alignment has no meaning without barriers");
  const expected = await engine(page, { mode: "micro_batch" });
  const shown = await figures(page);
  assert.equal(shown.replayed_events, expected.replayed_events.toLocaleString("en-US"));
  assert.equal(shown.worst_case_replay_events, "60,000");
  const table = await page.$$eval("#lab >> [data-table=crash] tbody tr", (rows) => rows.map((r) => r.cells[2].textContent));
  assert.deepEqual(table, expected.crash_table.map((r) => r.what));
  assert.ok(table.some((what) => /batch 42 is in the offset log \(1,000,000 to 1,060,000\)/.test(what)), table.join("\n"));
  // The batch timeline replaces the checkpoint timeline.
  await page.click("#lab >> [data-chart=checkpoints] + details summary");
  await page.waitForSelector("#lab >> [data-chart=checkpoints] + details[open] .alt-summary:not(:empty)");
  assert.match(await page.textContent("#lab >> [data-chart=checkpoints] + details .alt-summary"), /batches committed/);
  await page.selectOption("#lab >> [data-control=mode]", "barrier");
  await settled(page);
  assert.equal((await figures(page)).replayed_events, "30,000");
  assert.equal(await page.isDisabled("#lab >> [data-control=alignment]"), false);
  assert.deepEqual(errors, []);
});

test("pinning A and changing to B overlays the charts and shows both figures", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  assert.deepEqual(Object.values(await pinnedFigures(page)).filter((v) => v !== null), [], "no comparison at first");
  const before = { replay: await chartHash(page, "replay"), latency: await chartHash(page, "latency"), tradeoff: await chartHash(page, "tradeoff") };
  await page.click("#lab >> [data-action=pin]");
  await settled(page);
  let pinned = await pinnedFigures(page);
  assert.equal(pinned.replayed_events, "A 30,000 · B−A ±0");
  assert.match(await page.textContent("#lab >> [data-compare=status]"), /A \(dashed grey\): barrier 30 s, 2 GB/);
  // B: the same job as micro-batches.
  await page.selectOption("#lab >> [data-control=mode]", "micro_batch");
  await settled(page);
  const b = await engine(page, { mode: "micro_batch" });
  const shown = await figures(page);
  pinned = await pinnedFigures(page);
  assert.equal(shown.replayed_events, b.replayed_events.toLocaleString("en-US"));
  const diff = b.replayed_events - 30_000;
  assert.equal(pinned.replayed_events, `A 30,000 · B−A ${diff > 0 ? "+" : "−"}${Math.abs(diff).toLocaleString("en-US")}`);
  assert.equal(pinned.worst_case_replay_events, `A 64,200 · B−A −4,200`);
  assert.equal(pinned["append_only.duplicate_rows"].startsWith("A "), true);
  // The overlay is drawn: the same B without A looks different on each compared chart.
  const withA = { replay: await chartHash(page, "replay"), latency: await chartHash(page, "latency"), tradeoff: await chartHash(page, "tradeoff") };
  await fullScreenshot(page, { path: shotPath("compare-1280-light.png") });
  await page.click("#lab >> [data-action=unpin]");
  await settled(page);
  const withoutA = { replay: await chartHash(page, "replay"), latency: await chartHash(page, "latency"), tradeoff: await chartHash(page, "tradeoff") };
  for (const chart of ["replay", "latency", "tradeoff"]) {
    assert.notEqual(withA[chart], withoutA[chart], `${chart} draws A under B`);
    assert.notEqual(withoutA[chart], before[chart], `${chart} shows B's own run`);
  }
  assert.deepEqual(Object.values(await pinnedFigures(page)).filter((v) => v !== null), []);
  assert.deepEqual(errors, []);
});

test("the export panel follows the settings and copies them", async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (err) => errors.push(String(err)));
  await page.goto(`${base}/index.html`);
  await page.waitForSelector("body[data-ready=true]", { state: "attached" });
  await settled(page);
  await page.click("#lab >> [data-panel=export] summary");
  // The panel is written on its toggle event, a task after the click.
  await page.waitForSelector("#lab >> [data-export=flink]:not(:empty)");
  const flink = await page.textContent("#lab >> [data-export=flink]");
  assert.match(flink, /^execution\.checkpointing\.interval: 30 s$/m);
  assert.match(flink, /^execution\.checkpointing\.unaligned\.enabled: false$/m);
  assert.match(await page.textContent("#lab >> [data-export=spark]"), /Trigger\.ProcessingTime\("30 seconds"\)/);
  // A 1 minute trigger, unaligned and incremental.
  await page.selectOption("#lab >> [data-control=mode]", "micro_batch");
  await page.focus("#lab >> [data-control=interval]");
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowRight");
  await page.click("#lab >> .advanced summary");
  // In micro-batch mode the snapshots control chooses Spark's state store provider.
  const provider = await page.evaluate(() => document.querySelector("#lab").shadowRoot.querySelector("[data-control=snapshots] option[value=incremental]").textContent);
  assert.equal(provider, "RocksDB (changelog)");
  await page.selectOption("#lab >> [data-control=snapshots]", "incremental");
  await settled(page);
  const spark = await page.textContent("#lab >> [data-export=spark]");
  assert.match(spark, /Trigger\.ProcessingTime\("1 minute"\)/);
  assert.match(spark, /RocksDBStateStoreProvider/);
  assert.match(await page.textContent("#lab >> [data-export=pyspark]"), /trigger\(processingTime="1 minute"\)/);
  // The lesson's settings lose nothing on a real cluster: no warning above the exports.
  assert.equal(await page.locator("#lab >> [data-export-warnings] li").count(), 0);
  assert.match(await page.textContent("#lab >> [data-export=flink]"), /^execution\.checkpointing\.incremental: true$/m);
  await page.click("#lab >> [data-copy=spark]");
  await page.waitForFunction(() => document.querySelector("#lab").shadowRoot.querySelector("[data-copy=spark] + .copy-status").textContent === "Copied.");
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), spark);
  await page.locator("#lab >> [data-panel=export]").screenshot({ path: shotPath("export-panel.png") });
  assert.deepEqual(errors, []);
  await context.close();
});

test("screenshots: micro-batches at 360 px, dark", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`, { width: 360, height: 800, colorScheme: "dark" });
  await page.selectOption("#lab >> [data-control=mode]", "micro_batch");
  await settled(page);
  await fullScreenshot(page, { path: shotPath("micro-batch-360-dark.png") });
  assert.deepEqual(errors, []);
});
